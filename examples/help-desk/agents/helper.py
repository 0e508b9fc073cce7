"""The help desk: refunds orders, remembers what people prefer, and chats."""

from kindgi import Agent

from ..guardrails.answers import answer_not_empty, no_shouting
from ..tools.orders import issue_refund, lookup_order

helper = Agent(
    id="acme-desk.helper",
    version="1.0.0",
    name="Help desk",
    instructions="Help the customer. Refund orders with acme-desk.issue-refund.",
    capabilities=[{"needs": [{"feature": "tool-use"}]}],
    tools=[lookup_order, issue_refund],
    guardrails=[answer_not_empty, no_shouting],
    memory={"remember": {"types": ["preference"], "scope": "same-user"}},
)
