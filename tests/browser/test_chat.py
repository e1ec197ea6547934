"""The daemon's browser chat at ``/``, driven in headless Chromium against a live daemon."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from goliath import Agent, FallbackRequest
from goliath.models import GenerateRequest
from goliath.testing import FakeModel
from tests.transports.conftest import TOKEN, running_daemon
from tests.transports.daemon_app import make_agent, scripted_reply

from .conftest import browser_page, in_browser, require_chromium, screenshot

pytestmark = pytest.mark.slow
CLOUD_TEXT = "From the cloud: here is the plan."


def chat_reply(request: GenerateRequest) -> dict[str, Any]:
    """The daemon tests' script, plus: an ask starting "escalate" is handed to the cloud."""
    ask = request.prompt.rsplit("Ask: ", 1)[-1].split("\n", 1)[0]
    if request.label == "conductor" and ask.startswith("escalate"):
        return {"json": {"call": "beyond_these_functions"}}
    return scripted_reply(request)


def chat_agent(created: list[str]) -> Agent:
    def cloud(request: FallbackRequest) -> str:
        return CLOUD_TEXT

    return make_agent(created).with_options(model=FakeModel(chat_reply), fallback=cloud)


def open_chat(page: Any, url: str, conversation: str = "alice") -> list[str]:
    """Load the page, give it the token, start ``conversation``; return every request URL."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(url + "/")
    page.get_by_test_id("status").filter(has_text="needs the bearer token").wait_for()
    # The page asks who it is before it asks for readiness, so "ready" never paints over
    # the missing token (it did, under load, when both ran at once).
    assert not [address for address in requests if address.endswith("/readyz")]
    page.fill("#token", TOKEN)
    page.click("#token-form button")
    page.get_by_test_id("status").filter(has_text="ready").wait_for()
    page.fill("#conversation-name", conversation)
    page.click("#new-conversation button")
    page.locator("#conversation-title", has_text=conversation).wait_for()
    return requests


def send(page: Any, ask: str) -> Any:
    """Type an ask, press Enter, and return the locator of its turn."""
    page.fill("#ask", ask)
    page.press("#ask", "Enter")
    turn = page.locator("article.turn", has=page.locator(".ask", has_text=ask)).last
    turn.wait_for()
    return turn


def only_own_origin(requests: list[str], url: str) -> None:
    assert requests, "the page made no requests at all"
    strangers = [address for address in requests if not address.startswith(url + "/")]
    assert not strangers, f"requests to other origins: {strangers}"


async def test_the_page_is_served_at_the_root_with_a_same_origin_policy() -> None:
    """GET / answers the chat page with a CSP that allows only the daemon's own origin."""
    async with running_daemon(chat_agent([])) as url, httpx.AsyncClient(base_url=url) as http:
        response = await http.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert "<title>Goliath</title>" in response.text
    assert "http://" not in response.text and "https://" not in response.text


async def test_a_turn_with_an_approval_streams_its_steps_and_answers_on_the_device() -> None:
    """The write waits in a confirmation card; approving it runs the tool once and the
    answer arrives with a "device" badge; the page talks only to its own origin."""
    require_chromium()
    created: list[str] = []

    async with running_daemon(chat_agent(created)) as url:

        def script() -> tuple[list[str], list[str], str, str]:
            with browser_page() as page:
                requests = open_chat(page, url)
                turn = send(page, "add eggs")
                card = turn.get_by_test_id("confirm-card")
                card.wait_for()
                assert "create_task" in card.inner_text() and '"eggs"' in card.inner_text()
                card.get_by_test_id("approve").click()
                card.get_by_test_id("outcome").filter(has_text="Approved").wait_for()
                answer = turn.get_by_test_id("answer")
                answer.wait_for()
                steps = turn.locator(".steps li").all_inner_texts()
                screenshot(page, "chat-approval.png")
                return (
                    requests,
                    steps,
                    answer.inner_text(),
                    turn.get_by_test_id("handled-by").text_content(),
                )

        requests, steps, answer, handled_by = await in_browser(script)
    assert created == ["eggs"]
    assert "answer to add eggs" in answer and handled_by == "device"
    assert any(step.startswith("plan create_task") for step in steps)
    assert "approved create_task" in steps
    assert any(step.startswith("create_task → ok: true") for step in steps)
    only_own_origin(requests, url)


async def test_a_declined_write_does_not_run_and_the_reason_reaches_the_model() -> None:
    """Declining with a reason skips the write; the step log shows the decline and its reason."""
    require_chromium()
    created: list[str] = []

    async with running_daemon(chat_agent(created)) as url:

        def script() -> tuple[list[str], str]:
            with browser_page() as page:
                open_chat(page, url)
                turn = send(page, "add milk")
                card = turn.get_by_test_id("confirm-card")
                card.locator("input").fill("not today")
                card.get_by_test_id("decline").click()
                card.get_by_test_id("outcome").filter(has_text="Declined").wait_for()
                turn.get_by_test_id("answer").wait_for()
                return turn.locator(".steps li").all_inner_texts(), turn.inner_text()

        steps, text = await in_browser(script)
    assert created == []
    assert "declined create_task: not today" in steps
    assert any("declined by the user: not today" in step for step in steps)
    assert "answer to add milk" in text


async def test_cancel_stops_a_running_turn_and_the_page_is_ready_for_the_next_ask() -> None:
    """Cancel ends a turn stuck in a slow tool; the page says so and accepts a new ask."""
    require_chromium()
    agent = chat_agent([])

    async with running_daemon(agent) as url:

        def script() -> tuple[str | None, str, str]:
            with browser_page() as page:
                open_chat(page, url)
                turn = send(page, "wait for the report")
                turn.locator(".steps li", has_text="plan slow_job").wait_for()
                page.click("#cancel")
                error = turn.get_by_test_id("turn-error")
                error.wait_for()
                page.locator("#cancel").wait_for(state="hidden")
                code = error.get_attribute("data-code")
                after = send(page, "hello again")
                after.get_by_test_id("answer").wait_for()
                return code, error.inner_text(), after.get_by_test_id("answer").inner_text()

        code, message, next_answer = await in_browser(script)
        assert not list(agent.runtime.supervisor.running())
    assert code == "cancelled" and message == "Cancelled."
    assert "answer to hello again" in next_answer


async def test_an_escalated_turn_shows_the_cloud_answer_with_a_cloud_badge() -> None:
    """A turn the device hands over is answered by the fallback and marked "cloud"."""
    require_chromium()

    async with running_daemon(chat_agent([])) as url:

        def script() -> tuple[str, str, list[str]]:
            with browser_page() as page:
                open_chat(page, url)
                turn = send(page, "escalate this please")
                answer = turn.get_by_test_id("answer")
                answer.wait_for()
                return (
                    answer.inner_text(),
                    turn.get_by_test_id("handled-by").text_content(),
                    turn.locator(".steps li").all_inner_texts(),
                )

        text, handled_by, steps = await in_browser(script)
    assert CLOUD_TEXT in text and handled_by == "cloud"
    assert "escalated: conductor-asked" in steps


async def test_conversations_keep_their_own_memory_and_can_be_forgotten() -> None:
    """Switching conversations shows each one's remembered exchanges; Forget clears them."""
    require_chromium()

    async with running_daemon(chat_agent([])) as url:

        def script() -> tuple[list[str], list[str], list[str], str]:
            with browser_page() as page:
                open_chat(page, url, "alice")
                send(page, "hello from alice").get_by_test_id("answer").wait_for()
                page.fill("#conversation-name", "bob")
                page.click("#new-conversation button")
                page.locator(".notice", has_text="A new conversation").wait_for()
                bob_before = page.locator("#log .ask").all_inner_texts()
                page.click("#conversations [data-conversation='alice']")
                remembered = page.locator("#log .answer.past")
                remembered.first.wait_for()
                alice = page.locator("#log .ask").all_inner_texts()
                listed = page.locator("#conversations button").all_inner_texts()
                page.click("#forget")
                page.locator(".notice", has_text="A new conversation").wait_for()
                screenshot(page, "chat-conversations.png")
                return bob_before, alice, listed, page.locator("#log").inner_text()

        bob_before, alice, listed, after_forget = await in_browser(script)
    assert bob_before == []
    assert alice == ["hello from alice"]
    assert listed[-2:] == ["alice", "bob"]
    assert "hello from alice" not in after_forget


async def test_each_browser_gets_its_own_conversation_inside_its_users_prefix() -> None:
    """Two browsers that never named a conversation do not share one (there is no "default"
    for everyone), and a user's browser starts inside that user's prefix: its first ask is
    answered and remembered there."""
    require_chromium()
    from transports.users import User, Users

    users = Users([User(name="alice", token="alice-browser-token-1", conversations="alice:")])
    async with running_daemon(chat_agent([]), users=users) as url:

        def first_conversation(token: str) -> tuple[str, str]:
            with browser_page() as page:
                page.goto(url + "/")
                page.get_by_test_id("status").filter(has_text="needs the bearer token").wait_for()
                page.fill("#token", token)
                page.click("#token-form button")
                page.locator(".notice", has_text="A new conversation").wait_for()
                title = page.locator("#conversation-title").inner_text()
                send(page, "hello there").get_by_test_id("answer").wait_for()
                return title, page.locator("#log").inner_text()

        one, _ = await in_browser(lambda: first_conversation(TOKEN))
        two, _ = await in_browser(lambda: first_conversation(TOKEN))
        alice, log = await in_browser(lambda: first_conversation("alice-browser-token-1"))
        async with httpx.AsyncClient(
            base_url=url, headers={"authorization": f"Bearer {TOKEN}"}
        ) as http:
            remembered = (await http.get(f"/v1/conversations/{alice}/memory")).json()
    assert one != two and "default" not in (one, two)
    assert one.startswith("chat-") and two.startswith("chat-")
    assert alice.startswith("alice:chat-")
    assert "answer to hello there" in log
    assert [exchange["ask"] for exchange in remembered["recent"]] == ["hello there"]


async def test_the_answer_appears_token_by_token_before_the_turn_ends() -> None:
    """A draft answer grows as `token` events arrive, while the turn still runs; the final
    answer replaces it."""
    require_chromium()
    agent = make_agent([]).with_options(model=FakeModel(scripted_reply, token_delay=0.4))
    async with running_daemon(agent) as url:

        def script() -> tuple[str, int, str, int]:
            with browser_page() as page:
                open_chat(page, url)
                turn = send(page, "tell a long story")
                draft = turn.get_by_test_id("draft-answer")
                draft.filter(has_text="answer to").wait_for()
                partial = draft.inner_text()
                finals_while_drafting = turn.get_by_test_id("answer").count()
                answer = turn.get_by_test_id("answer")
                answer.wait_for()
                screenshot(page, "chat-tokens.png")
                return partial, finals_while_drafting, answer.inner_text(), draft.count()

        partial, finals_while_drafting, answer, drafts_after = await in_browser(script)
    assert partial.startswith("answer to") and partial != "answer to tell a long story"
    assert finals_while_drafting == 0
    assert "answer to tell a long story" in answer
    assert drafts_after == 0
