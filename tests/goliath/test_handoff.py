"""The hand-off check: one yes/no-like question before the first plan decides who handles it."""

from __future__ import annotations

import math
from typing import Any

import attrs
import pytest

from goliath import Agent, tool
from goliath.errors import ConfigError
from goliath.models import Generation
from goliath.records import FallbackRequest
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.handoff import (
    CLOUD_NEEDS,
    KINDS,
    asks_about_own_data,
    hand_off_system,
    hand_off_user,
    names_emergency,
    only_asks,
    read_hand_off,
    unserved_action,
)


def make(name: str, description: str) -> Tool:
    def run() -> str:
        return "milk: 2 litres"

    run.__name__ = name
    run.__doc__ = description
    return tool(run)


TOOLS = [
    make("list_items", "List the items on the shopping list. Returns one line per item."),
    make("get_weather", "Today's weather forecast for a city."),
]
PLAN = {"json": {"call": "list_items", "then": "answer_the_user"}}
ANSWER = {"text": "You need milk."}


def check(kind: str, *, phone: float | None = None, cloud: float | None = None) -> dict[str, Any]:
    """The check's reply naming ``kind``; with scores, every device kind at ``phone`` and every
    cloud kind at ``cloud`` (so the margin is ``cloud - phone`` exactly)."""
    entry: dict[str, Any] = {"json": {"kind": kind}}
    if phone is not None and cloud is not None:
        device = [name for name, _, needs in KINDS if not needs]
        remote = [name for name, _, needs in KINDS if needs]
        entry["scores"] = {
            **{name: phone - math.log(len(device)) for name in device},
            **{name: cloud - math.log(len(remote)) for name in remote},
        }
    return entry


class Cloud:
    def __init__(self) -> None:
        self.requests: list[FallbackRequest] = []

    async def __call__(self, request: FallbackRequest) -> str:
        self.requests.append(request)
        return "(cloud)"


async def run(model: FakeModel, ask: str = "what's on my list?", **options: Any) -> Any:
    cloud = Cloud()
    tools = options.pop("tools", TOOLS)
    async with Agent(model, tools=tools, fallback=cloud, hand_off_check=True, **options) as agent:
        result = await agent.run(ask)
    return result, cloud


async def test_a_cloud_verdict_hands_the_turn_over_before_any_plan() -> None:
    model = FakeModel([check("project", phone=-3.0, cloud=-0.1)])
    result, cloud = await run(model, "plan three weeks in Japan for us")
    assert [call.label for call in model.calls] == ["handoff"]
    assert result.handled_by == "cloud" and result.text == "(cloud)"
    assert cloud.requests[0].reason == "conductor-asked"


async def test_a_phone_verdict_goes_on_to_the_plan() -> None:
    model = FakeModel([check("lookup", phone=-0.1, cloud=-3.0), PLAN, ANSWER])
    result, cloud = await run(model)
    assert [call.label for call in model.calls] == ["handoff", "conductor", "answer"]
    assert result.handled_by == "device" and result.text == "You need milk."
    assert not cloud.requests


async def test_the_scores_decide_over_the_generated_name() -> None:
    # greedy generation named a device kind, but the cloud's lead 1.0 > the margin 0.5
    model = FakeModel([check("lookup", phone=-2.0, cloud=-1.0)])
    result, _ = await run(model, "plan my trip", hand_off_margin=0.5)
    assert result.handled_by == "cloud"
    # and a lead smaller than the margin keeps it on the device
    model = FakeModel([check("purchase", phone=-1.2, cloud=-1.0), PLAN, ANSWER])
    result, _ = await run(model, hand_off_margin=0.5)
    assert result.handled_by == "device"


async def test_without_scores_the_generated_name_decides() -> None:
    result, _ = await run(FakeModel([check("purchase")]), "pay my phone bill")
    assert result.handled_by == "cloud"
    result, _ = await run(FakeModel([check("lookup"), PLAN, ANSWER]))
    assert result.handled_by == "device"


def test_the_cloud_kinds_together_are_weighed_against_the_device_kinds() -> None:
    # lookup at -0.1 beats each cloud kind (-2.0) by far, but the four together weigh
    # log(4 e^-2) = -0.61: the margin is -0.61 - (-0.1), a hand-off only below -0.51
    scores = {
        name: (-0.1 if name == "lookup" else -2.0 if needs else -30.0) for name, _, needs in KINDS
    }
    verdict = read_hand_off(Generation(text='{"kind": "lookup"}', scores=scores))
    assert verdict.kind == "lookup" and verdict.hand_off is False
    assert verdict.margin == pytest.approx(math.log(4 * math.exp(-2.0)) + 0.1, abs=1e-6)
    assert read_hand_off(Generation(text="{}", scores=scores), margin=-0.6).hand_off is True


async def test_the_check_is_off_unless_asked_for() -> None:
    model = FakeModel([PLAN, ANSWER])
    async with Agent(model, tools=TOOLS) as agent:
        result = await agent.run("what's on my list?")
    assert [call.label for call in model.calls] == ["conductor", "answer"]
    assert result.handled_by == "device"


async def test_a_retried_first_plan_does_not_ask_again() -> None:
    model = FakeModel([check("lookup", phone=-0.1, cloud=-3.0), {"text": "not json"}, PLAN, ANSWER])
    result, _ = await run(model)
    assert [call.label for call in model.calls] == ["handoff", "conductor", "conductor", "answer"]
    assert result.text == "You need milk."


async def test_the_check_sees_the_functions_the_ask_and_the_last_exchange() -> None:
    model = FakeModel([check("lookup"), PLAN, ANSWER])
    result, _ = await run(model)
    request = model.calls[0]
    assert request.schema is not None
    assert request.schema["properties"]["kind"]["enum"] == [name for name, _, _ in KINDS]
    assert request.score == "kind"
    assert "- list_items: List the items on the shopping list\n" in request.system
    assert "Returns one line" not in request.system  # a purpose, not a manual
    assert request.prompt == "Request: what's on my list?"
    assert result.handled_by == "device"


def test_a_follow_up_carries_the_last_exchange() -> None:
    class Last:
        ask = "what's Ana's number?"
        answer = "Ana's number is 555 0101."

    text = hand_off_user("ok text her that I'm late", [Last()])
    assert text.startswith("Earlier the user asked: what's Ana's number?\n")
    assert "The assistant answered: Ana's number is 555 0101." in text
    assert text.endswith("Request: ok text her that I'm late")


def test_the_system_prompt_is_byte_stable_and_takes_the_apps_description() -> None:
    first = hand_off_system(TOOLS)
    assert first == hand_off_system(list(TOOLS))
    for name, meaning, _ in KINDS:
        assert f"- {name}: {meaning}\n" in first
    assert "buying, paying" in CLOUD_NEEDS and "small talk" not in CLOUD_NEEDS
    own = hand_off_system(TOOLS, "anything about  money")
    assert "This app also sends to a larger assistant: anything about money.\n" in own
    assert "This app also" not in first


def test_bad_options_are_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="hand_off_check"):
        Agent(FakeModel([]), hand_off_check="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="cloud_needs"):
        Agent(FakeModel([]), cloud_needs="  ")
    with pytest.raises(ConfigError, match="hand_off_margin"):
        Agent(FakeModel([]), hand_off_margin="high")  # type: ignore[arg-type]


async def test_once_the_check_keeps_the_ask_the_first_plan_cannot_hand_it_over() -> None:
    model = FakeModel([check("lookup", phone=-0.1, cloud=-3.0), PLAN, ANSWER])
    await run(model)
    plan_schema = model.calls[1].schema
    assert plan_schema is not None
    offered = plan_schema["properties"]["call"]["enum"]
    assert "beyond_these_functions" not in offered
    assert {"list_items", "general_knowledge_or_chat"} <= set(offered)
    # without the check the option is there
    unchecked = FakeModel([PLAN, ANSWER])
    async with Agent(unchecked, tools=TOOLS) as agent:
        await agent.run("what's on my list?")
    schema = unchecked.calls[0].schema
    assert schema is not None
    assert "beyond_these_functions" in schema["properties"]["call"]["enum"]


def test_the_check_is_on_by_default_for_a_model_that_scores_options() -> None:
    class Scoring(FakeModel):
        scores_options = True

    assert Agent(Scoring([]), tools=TOOLS).config.hand_off_check is True
    assert Agent(Scoring([]), tools=TOOLS, hand_off_check=False).config.hand_off_check is False
    assert Agent(FakeModel([]), tools=TOOLS).config.hand_off_check is False
    assert Agent("local", tools=TOOLS).config.hand_off_check is True  # llama.cpp, not loaded
    assert Agent("apple", tools=TOOLS).config.hand_off_check is False
    from goliath.models.managed import ManagedModel

    assert ManagedModel.scores_options is True  # the same model behind `serve --slots`
    assert Agent(Scoring([]), tools=TOOLS).config.write_intent_check is True
    assert Agent(FakeModel([]), tools=TOOLS).config.write_intent_check is False


BUDGETS = make("get_budgets", "This month's budgets: spent and left in each category.")


def test_a_question_naming_what_a_read_holds_is_about_own_data() -> None:
    tools = [*TOOLS, BUDGETS]
    assert asks_about_own_data("how much is left in my eating-out budget?", tools)
    assert asks_about_own_data("Is the weather good for a walk in Porto?", tools)
    # a request, a question about nothing a read holds, a name that only says how it reads
    assert not asks_about_own_data("book a budget hotel in Porto", tools)
    assert not asks_about_own_data("can you move my budget to savings?", tools)
    assert not asks_about_own_data("am I allowed to withhold rent?", tools)
    assert not asks_about_own_data("what's on my list?", tools)
    # a question asking what to do is the check's; "status" only says how a function reads
    assert not asks_about_own_data("should I cut my budget for eating out?", tools)
    status = make("get_order_status", "Where an order is.")
    assert not asks_about_own_data("what's the status of the peace talks?", [status])


async def test_a_question_about_own_data_is_kept_without_asking_the_check() -> None:
    model = FakeModel([PLAN, ANSWER])
    result, cloud = await run(model, "how much is left in my budget?", tools=[*TOOLS, BUDGETS])
    assert [call.label for call in model.calls] == ["conductor", "answer"]
    assert result.handled_by == "device" and not cloud.requests
    # the first plan has no hand-off option then: the check kept the ask
    schema = model.calls[0].schema
    assert schema is not None
    assert "beyond_these_functions" not in schema["properties"]["call"]["enum"]


async def test_a_request_naming_what_a_read_holds_still_asks_the_check() -> None:
    model = FakeModel([check("purchase", phone=-3.0, cloud=-0.1)])
    result, _ = await run(model, "send the budget surplus to Alex", tools=[*TOOLS, BUDGETS])
    assert [call.label for call in model.calls] == ["handoff"]
    assert result.handled_by == "cloud"


@pytest.mark.parametrize(
    ("ask", "asks"),
    [
        ("When do I have to pay Vodafone, and how much is it?", True),
        ("what did the most recent FreshCart charge come to?", True),
        ("And what's the amount on the Eneco bill?", True),
        ("so how much was it", True),
        ("who owns this number? search the web and block them", False),
        ("do my taxes pls", False),
        ("Can you buy the groceries on my list?", False),
        ("pay Alex back the 40 euros", False),
        ("is the door locked?", False),  # may open a request ("is it ok to book ...")
    ],
)
def test_only_asks_is_one_question_opened_by_a_question_word(ask: str, asks: bool) -> None:
    assert only_asks(ask) is asks


def purchase_leads(cloud_rest: float) -> dict[str, float]:
    """Scores where ``purchase`` leads every kind and the other cloud kinds sit at
    ``cloud_rest``."""
    scores = {name: (cloud_rest if needs else -2.0) for name, _, needs in KINDS}
    scores["purchase"] = -0.2
    return scores


def test_a_question_that_only_asks_is_no_purchase() -> None:
    reply = Generation(text='{"kind": "purchase"}', scores=purchase_leads(-9.0))
    assert read_hand_off(reply).hand_off is True
    verdict = read_hand_off(reply, question=True)
    assert verdict.hand_off is False and verdict.margin is not None and verdict.margin < -5
    # the other cloud kinds still count for a question ("what should I do? my chest hurts")
    advice = Generation(text='{"kind": "advice"}', scores=purchase_leads(-0.5))
    assert read_hand_off(advice, question=True).hand_off is True
    # unscored (Apple): the named kind decides, and a purchase named for a question is kept
    assert read_hand_off(Generation(text='{"kind": "purchase"}'), question=True).hand_off is False
    assert read_hand_off(Generation(text='{"kind": "web"}'), question=True).hand_off is True


async def test_the_turn_keeps_a_question_the_check_called_a_purchase() -> None:
    purchase = {"json": {"kind": "purchase"}, "scores": purchase_leads(-9.0)}
    model = FakeModel([purchase, PLAN, ANSWER])
    result, cloud = await run(model, "how much was my last grocery payment?")
    assert [call.label for call in model.calls] == ["handoff", "conductor", "answer"]
    assert result.handled_by == "device" and not cloud.requests
    # the same scores for a request to pay hand it over
    model = FakeModel([{"json": {"kind": "purchase"}, "scores": purchase_leads(-9.0)}])
    result, cloud = await run(model, "pay my grocery bill")
    assert result.handled_by == "cloud" and cloud.requests


INBOX = [
    make("list_emails", "List the newest emails in the inbox."),
    make("send_email", "Send an email to a contact."),
    make("archive_email", "Archive an email by id."),
]


@pytest.mark.parametrize(
    ("ask", "verb"),
    [
        ("unsubscribe me from every newsletter", "unsubscribe"),
        ("go through my emails and unsubscribe me from the mailing lists", "unsubscribe"),
        ("find the cheapest flight to Porto, then book it", "book"),
        ("could you pay Alex back the 40 euros?", "pay"),
        ("Please reserve and pay for the 06:15 train", "reserve"),
        ("look up who owns this number and block them", "block"),
        ("email Sam the agenda", None),  # a function sends email
        ("archive the newsletter from Lidl", None),
        ("remind me to buy milk", None),  # not what the clause asks for
        ("is the order arriving today?", None),  # asked about, not asked for
        ("order arriving today? then email Theo", None),
        ("what did I pay for the train?", None),
        ("todo: sell old bike", None),  # an item dictated after a label
        ("book club is cancelled, archive the reminder email", None),  # a subject, not a verb
        ("order has shipped? then email Theo", None),
        ("new task: buy stamps", None),
        ("stop the marketing emails: unsubscribe from every sender", "unsubscribe"),
    ],
)
def test_an_act_no_function_does_is_named(ask: str, verb: str | None) -> None:
    assert unserved_action(ask, INBOX) == verb


def test_booking_time_beside_a_calendar_is_left_to_the_check() -> None:
    event = make("create_event", "Add an event to the calendar.")
    calendar = [*INBOX, attrs.evolve(event, writes=True)]
    assert unserved_action("block 90 minutes tomorrow for the report", INBOX) == "block"
    assert unserved_action("block 90 minutes tomorrow for the report", calendar) is None
    assert unserved_action("book a bike ride with Theo at 3pm", calendar) is None
    # a table, a taxi, a flight are booked with someone outside, never in the calendar
    assert unserved_action("find an Italian place and reserve a table for 4", calendar) == "reserve"
    assert unserved_action("book me a taxi to the airport", calendar) == "book"
    assert unserved_action("book the meeting room for Friday", calendar) is None
    assert unserved_action("book my flight into the calendar for Friday", calendar) is None

    @tool(writes=True)
    def reserve_table(restaurant: str, people: int) -> str:
        """Reserve a table at a restaurant.

        Args:
            restaurant: Where.
            people: How many.
        """
        return "ok"

    # a function books the table: the device can do it
    assert unserved_action("book a table for two at Nopa", [*calendar, reserve_table]) is None
    assert unserved_action("buy two tickets for the concert", calendar) == "buy"


@pytest.mark.parametrize(
    "ask",
    [
        "add to my list: buy stamps",
        "text my sister: buy milk",
        "remind me to pay the rent on friday",
        "buy stamps, add it to my todo",
        'add "pay parking fine" and "book MOT" to my list',
        "order history for this month",
        "report from the school came in, file it",
        "pay day on the 25th, note it down",
        "reminder for tmrw - pay the nanny",
        "to-do: buy stamps, pay gas bill, book haircut",
        "pay rent reminder for the 28th",
        "block out the noise",
        "pay attention to the dining budget",
    ],
)
def test_dictated_items_and_nouns_are_left_to_the_check(ask: str) -> None:
    assert unserved_action(ask, INBOX) is None


def test_buying_beside_a_shopping_list_is_left_to_the_check() -> None:
    shop = attrs.evolve(make("add_item", "Add an item to the shopping list."), writes=True)
    assert unserved_action("buy eggs and milk", INBOX) == "buy"
    assert unserved_action("buy eggs and milk", [*INBOX, shop]) is None
    # paying is not adding: still handed over
    assert unserved_action("buy the groceries and pay with my card", [*INBOX, shop]) == "pay"
    assert unserved_action("block that number", INBOX) == "block"  # an object, not a noun


def test_an_act_on_it_in_a_follow_up_is_left_to_the_check() -> None:
    assert unserved_action("yes, book it", INBOX) == "book"
    assert unserved_action("yes, book it", INBOX, follow_up=True) is None
    assert unserved_action("ok pay the gas bill", INBOX, follow_up=True) == "pay"
    assert unserved_action("I'd like to pay my phone bill", INBOX) == "pay"


def test_a_function_that_does_the_act_keeps_it() -> None:
    booking = [*INBOX, make("book_table", "Book a table at a restaurant.")]
    assert unserved_action("book a table for four", INBOX) == "book"
    assert unserved_action("book a table for four", booking) is None
    subscriptions = [*INBOX, make("subscribe", "Subscribe to a podcast.")]
    assert unserved_action("unsubscribe me from the newsletter", subscriptions) == "unsubscribe"


async def test_an_act_no_function_does_is_handed_over_without_a_model_call() -> None:
    model = FakeModel([])
    result, cloud = await run(model, "unsubscribe me from every newsletter", tools=INBOX)
    assert model.calls == []
    assert result.handled_by == "cloud" and cloud.requests[0].reason == "conductor-asked"
    # without the hand-off check the rule is not applied either (the plan decides)
    model = FakeModel([{"json": {"call": "list_emails", "then": "answer_the_user"}}, ANSWER])
    async with Agent(model, tools=INBOX, fallback=Cloud()) as agent:
        result = await agent.run("unsubscribe me from every newsletter")
    assert result.handled_by == "device"


@pytest.mark.parametrize(
    ("ask", "emergency"),
    [
        ("my dad just collapsed and isn't breathing, what do I do?", True),
        ("crushing chest pain and my left arm is numb", True),
        ("my chest feels really tight and it spreads to my jaw", True),
        ("lips swelling up after the peanuts and it's hard to breathe", True),
        ("I think she's having a stroke", True),
        ("what was my resting heart rate yesterday?", False),
        ("I had a stroke of luck today", False),
        ("log chest day at the gym", False),
        ("breathe in, breathe out: start a 5 minute timer", False),
        ("log: mild wheezing after running", False),  # recorded, not happening now
        ("how many seizures did I log this month?", False),
        ("play Heart Attack by Demi Lovato", False),
        ("the tent collapsed lol", False),
        ("unconscious bias training tomorrow 2pm", False),
        ("he's turning blue and won't wake up", True),
        ("I want to end my life", True),
        ("i dont want to be alive anymore", True),
        ("cannot catch my breath", True),
        ("my heart is racing and i feel like passing out", True),
        ("that bill nearly gave me a heart attack", False),
        ("text sam: i'm choking on my coffee lol", False),
        ("cant breathe through my nose, add tissues to the list", False),
    ],
)
def test_a_medical_emergency_is_recognised(ask: str, emergency: bool) -> None:
    assert names_emergency(ask) is emergency


async def test_an_emergency_is_handed_over_before_any_model_call() -> None:
    model = FakeModel([])
    result, cloud = await run(model, "chest pain really bad + sweating, what do i do")
    assert model.calls == [] and result.handled_by == "cloud"
    assert cloud.requests[0].reason == "conductor-asked"
