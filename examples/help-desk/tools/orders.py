"""Orders: look one up (a read), and issue a refund (a write a person approves when no
person started the run: a webhook, a schedule, a service account's key)."""

from kindgi import ToolContext, tool
from pydantic import BaseModel, Field


class Order(BaseModel):
    order_id: str = Field(alias="orderId", min_length=1)


class Found(BaseModel):
    order_id: str = Field(alias="orderId")
    total: float


class Refunded(BaseModel):
    refund_id: str = Field(alias="refundId")
    order_id: str = Field(alias="orderId")


@tool(
    id="acme-desk.lookup-order",
    mutating=False,
    effects=[{"kind": "reads", "resource": "orders"}],
)
def lookup_order(args: Order, ctx: ToolContext) -> Found:
    """Reads an order."""
    return Found(orderId=args.order_id, total=42.5)


@tool(
    id="acme-desk.issue-refund",
    mutating=True,
    needs_approval_when_unattended=True,
    effects=[{"kind": "writes", "resource": "refunds"}],
)
def issue_refund(args: Order, ctx: ToolContext) -> Refunded:
    """Refunds an order in full."""
    return Refunded(refundId=f"rf-{args.order_id}", orderId=args.order_id)
