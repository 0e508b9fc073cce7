"""`projects rename` / `projects production` and `tenant get` / `tenant rename`, through the
official client 0.1.10 (they answered `405` and `404 No route` before)."""

from __future__ import annotations

from pathlib import Path

from factories import served
from kindgi.client import Kindgi
from kindgi.client._models import Project, ProjectProduction, Tenant
from tables import every_row


def test_a_project_is_renamed_and_put_in_production_and_out(tmp_path: Path) -> None:
    with served(tmp_path) as (http, ctx):
        kindgi = Kindgi(base_url=str(http.base_url), token=ctx.identity.token, http_client=http)
        made = kindgi.projects.create(name="Support", slug="support").id
        assert kindgi.projects.update(made, name="Help desk", slug="help-desk") is None
        project = kindgi.projects.get(made)
        assert (project.name, project.slug, project.production_since) == (
            "Help desk", "help-desk", None)  # fmt: skip

        on = kindgi.projects.production.set(made, production=True)
        assert str(on.project_id) == made and on.production_since is not None
        again = kindgi.projects.production.set(made, production=True)
        assert again.production_since == on.production_since
        assert kindgi.projects.get(made).production_since == on.production_since
        off = http.put(f"/v1/projects/{made}/production", json={"production": False})
        assert off.json() == {"projectId": made, "productionSince": None}
        ProjectProduction.model_validate(off.json())
        Project.model_validate(http.get(f"/v1/projects/{made}").json())
        assert "productionSince" not in http.get(f"/v1/projects/{made}").json()


def test_refused_renames_write_nothing(tmp_path: Path) -> None:
    with served(tmp_path) as (http, ctx):
        made = http.post("/v1/projects", json={"name": "A", "slug": "a"}).json()["id"]
        http.post("/v1/projects", json={"name": "B", "slug": "b"})
        before = every_row(Path(ctx.db.path))
        refusals = [
            (f"/v1/projects/{made}", {"slug": "b"}, 409, "slug-conflict"),
            (f"/v1/projects/{made}", {"name": ""}, 400, "validation-failed"),
            (f"/v1/projects/{made}", {"orgId": "org-1"}, 404, "org-not-found"),
            (f"/v1/projects/{made}", {"owner": "me"}, 400, "validation-failed"),
            ("/v1/projects/nope", {"name": "C"}, 404, "project-not-found"),
        ]
        for path, body, status, code in refusals:
            answer = http.patch(path, json=body)
            assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), body
        nope = http.put("/v1/projects/nope/production", json={"production": True})
        assert (nope.status_code, nope.json()["error"]["code"]) == (404, "project-not-found")
        bad = http.put(f"/v1/projects/{made}/production", json={"production": "yes"})
        assert (bad.status_code, bad.json()["error"]["code"]) == (400, "validation-failed")
        assert every_row(Path(ctx.db.path)) == before
        same = http.patch(f"/v1/projects/{made}", json={"slug": "a"})
        assert same.status_code == 204
        assert every_row(Path(ctx.db.path)) == before


def test_the_tenant_is_read_and_renamed(tmp_path: Path) -> None:
    with served(tmp_path) as (http, ctx):
        kindgi = Kindgi(base_url=str(http.base_url), token=ctx.identity.token, http_client=http)
        tenant = kindgi.tenant.get()
        assert (str(tenant.id), tenant.name, tenant.slug) == (ctx.tenant_id, "kindgi dev",
                                                              "kindgi-dev")  # fmt: skip
        assert (tenant.production_allowed, tenant.state) == (True, "active")
        assert kindgi.tenant.update(name="Acme", slug="acme") is None
        renamed = http.get("/v1/tenant").json()
        Tenant.model_validate(renamed)
        assert (renamed["name"], renamed["slug"]) == ("Acme", "acme")
        assert renamed["updatedAt"] >= renamed["createdAt"]
        before = every_row(Path(ctx.db.path))
        for body in ({"slug": "Acme Inc"}, {"slug": "-acme"}, {"name": ""}, {"id": "x"}):
            answer = http.patch("/v1/tenant", json=body)
            assert (answer.status_code, answer.json()["error"]["code"]) == (
                400, "validation-failed"), body  # fmt: skip
        assert every_row(Path(ctx.db.path)) == before
        bare = http.get("/v1/tenant", headers={"Authorization": ""})
        assert bare.status_code == 401
