"""Is an answer grounded in what the turn found? Numbers, echoes, and a plain fallback.

A small model's closing answer can state a time, an amount or a count that no step returned,
say that nothing was found over a read that returned items (a wrong negative: "you have no
tasks" over a list of five), repeat the instruction it was given, or loop on one line. The answer stage checks the reply
here: an invented number or a wrong negative gets one retry with a note naming it, and a reply that is still
ungrounded, or that echoes its own prompt, is replaced by a plain summary of the steps, which
can be short but is never wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..compress import clip
from ..records import StepRecord
from .words import DAY_WORDS

__all__ = [
    "denial_note",
    "denies_finding",
    "echoes",
    "found_items",
    "grounding_note",
    "last_ran",
    "names_nothing_found",
    "step_summary",
    "ungrounded_numbers",
    "vague_note",
    "with_change",
    "with_findings",
]

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_WORDS = re.compile(r"[a-z']+")
_ECHO_WORDS = 7
"""A run of this many words of the stage's instructions in an answer is an echo."""
_SUMMARY_CHARS = 400


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _normal(token: str) -> str:
    """One spelling per number: no thousands separators, no leading zeros, no trailing zeros."""
    token = token.rstrip(".,:")
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", token):
        token = token.replace(",", "")
    if ":" in token:
        return ":".join(part.lstrip("0") or "0" for part in token.split(":"))
    token = token.replace(",", ".")
    if "." in token:
        whole, _, fraction = token.partition(".")
        fraction = fraction.rstrip("0")
        whole = whole.lstrip("0") or "0"
        return f"{whole}.{fraction}" if fraction else whole
    return token.lstrip("0") or "0"


def ungrounded_numbers(
    text: str, steps: Sequence[StepRecord], known: Iterable[str] = ()
) -> list[str]:
    """Numbers in ``text`` that no tool step's output, result or input holds, nor ``known``.

    Numbers compare in one spelling ("04:50" grounds "4:50", "11482" grounds "11,482", "47.40"
    grounds "47.4"), and a clock time also grounds its 12-hour form ("15:00" grounds "3 pm").
    """
    corpus = " ".join(
        [
            *known,
            *(
                f"{_text_of(step.output)} {step.result or ''} {_text_of(step.input)}"
                for step in steps
                if step.kind == "tool"
            ),
        ]
    ).lower()
    seen: set[str] = set()
    for token in _NUMBER.findall(corpus):
        normal = _normal(token)
        seen.add(normal)
        seen.update(_normal(part) for part in re.split(r"[.,:]", token) if part)
        hour, _, minute = normal.partition(":")
        if minute and hour.isdigit() and 12 < int(hour) < 24:
            seen.add(str(int(hour) - 12))
            seen.add(f"{int(hour) - 12}:{minute}")
    return [token for token in _NUMBER.findall(text.lower()) if _normal(token) not in seen]


def grounding_note(numbers: Sequence[str]) -> str:
    """The retry's note: the numbers the answer stated that nothing below shows."""
    shown = ", ".join(numbers[:5])
    return (
        f"Your previous reply stated {shown}, which the results above do not show. Answer again "
        "using only what the results show. Do not mention this notice."
    )


def echoes(text: str, instructions: str) -> bool:
    """Whether ``text`` repeats the stage's own instructions or says one line twice."""
    words = _WORDS.findall(instructions.lower())
    runs = {" ".join(words[i : i + _ECHO_WORDS]) for i in range(len(words) - _ECHO_WORDS + 1)}
    said = " ".join(_WORDS.findall(text.lower()))
    if any(run in said for run in runs):
        return True
    lines = [line.strip().lower() for line in text.splitlines() if len(line.strip()) > 20]
    return len(lines) != len(set(lines))


def step_summary(steps: Sequence[StepRecord]) -> str:
    """A plain account of what the turn did and found, for when the model's answer cannot be
    used: each change made or not made, then the last result looked up."""
    done: list[str] = []
    found = ""
    for step in steps:
        if step.kind != "tool":
            continue
        if step.writes:
            if step.skipped or step.failed:
                done.append(f"Not done: {step.tool} ({clip(step.result or 'skipped', 120)}).")
            else:
                done.append(f"Done: {step.tool} {_text_of(step.input or {})}.")
        elif not (step.skipped or step.failed or step.cached) and step.result:
            found = step.result
    parts = [*done]
    if found:
        parts.append("Here is what I found:\n" + clip(found, _SUMMARY_CHARS))
    if not parts:
        return "I could not find an answer to that."
    return "\n".join(parts)


_DENIAL = re.compile(
    r"\b(there (are|is|were|was) no|(has|have|had) no|(you )?(do not|don't|did not|didn't) have any|nothing (is|was|on|in"
    r"|found|scheduled)|no (\w+ )?(\w+ )?(found|scheduled|listed|on your|in your)|"
    r"(couldn't|could not|can't|cannot|didn't|did not|was unable to|were unable to) find|"
    r"(is|are) empty|not find any|none (found|on|in|scheduled))\b"
)


def last_ran(steps: Sequence[StepRecord]) -> StepRecord | None:
    """The turn's last call that ran (not failed, not skipped), a read or a write."""
    return next(
        (s for s in reversed(steps) if s.kind == "tool" and not (s.failed or s.skipped)), None
    )


def found_items(steps: Sequence[StepRecord]) -> int:
    """How many items the turn's last successful read returned (0 for no read, or a read
    that returned no list)."""
    step = last_ran(steps)
    if step is None or step.writes:
        return 0  # after a write, "nothing" may be about the change
    output = step.output
    if isinstance(output, dict):
        lists = [value for value in output.values() if isinstance(value, list)]
        output = lists[0] if len(lists) == 1 else None
    return len(output) if isinstance(output, list) else 0


_BARE_NO = re.compile(r"no (?:[a-z]+ ){0,2}[a-z]+[.!]*")
"""An answer that is only "no" and what there is none of ("No new texts.", "No emails
today!"): over a list of messages the 1.5B model answered "Any new texts?" so (dev)."""


def denies_finding(text: str) -> bool:
    """Whether an answer says that nothing was there or could be found."""
    spoken = text.lower().replace("’", "'")
    return bool(_DENIAL.search(spoken)) or _BARE_NO.fullmatch(spoken.strip()) is not None


def denial_note(count: int) -> str:
    """The retry's note for a wrong negative: the read returned items."""
    shown = "1 item" if count == 1 else f"{count} items"
    return (
        f"Your previous reply said nothing was found, but the results above hold {shown}. "
        "Answer again from those results: name what the ask wants from them; if it is not "
        "among them, say exactly what is missing. Do not mention this notice."
    )


_PLAIN_NO = re.compile(r"\s*(no|nope)\b", re.IGNORECASE)
_VALUE_WORD = re.compile(r"[^\W\d_]{3,}|\d+(?:[.,:]\d+)*", re.UNICODE)
_COMMON = frozenset(
    """the and for with from you your have has are was were this that there here what which
    when where who how not all any some one two yes none nothing found list lists item items
    task tasks event events note notes email emails message messages""".split()  # noqa: SIM905
)


def _value_words(value: Any, into: set[str], depth: int = 0) -> None:
    if depth > 4:
        return
    if isinstance(value, str):
        into.update(word.lower() for word in _VALUE_WORD.findall(value))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        into.add(_normal(str(value)))
    elif isinstance(value, dict):
        for key, item in value.items():
            if not str(key).lower().endswith("id"):  # ids say nothing to the user
                _value_words(item, into, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _value_words(item, into, depth + 1)


def names_nothing_found(text: str, steps: Sequence[StepRecord], ask: str) -> bool:
    """Whether an answer after a read that returned something says no word or number of it
    beyond the ask's own ("You have 6 tasks left.", "Yes, you have unread emails.")."""
    if _PLAIN_NO.match(text):
        return False  # "No, eggs are not on your list": a negative names what the ask named
    last = next(
        (s for s in reversed(steps) if s.kind == "tool" and not (s.failed or s.skipped)), None
    )
    if last is None or last.writes or last.output in (None, "", [], {}):
        return False
    found: set[str] = set()
    _value_words(last.output, found)
    asked = {word.lower() for word in _VALUE_WORD.findall(ask)}
    found -= asked | _COMMON
    if not found:
        return False
    said = {word.lower() for word in _VALUE_WORD.findall(text)}
    said |= {_normal(word) for word in said if word[:1].isdigit()}
    return not (said & found)


def with_findings(text: str, steps: Sequence[StepRecord]) -> str:
    """An answer that twice named nothing the last read returned, with that read's lines after
    it: the 1.5B model answers "You have 6 tasks left." again when asked for the titles, and
    the user asked for the titles (docs/design.md, "The answer check")."""
    last = next(
        (s for s in reversed(steps) if s.kind == "tool" and not (s.failed or s.skipped)), None
    )
    if last is None or not last.result:
        return text
    return f"{text.rstrip()}\nHere is what I found:\n{clip(last.result, _SUMMARY_CHARS)}"


_PLAIN = frozenset({"true", "false", "none", "null", "ok", "yes", "no"})


_WHEN_WORDS = DAY_WORDS | {"noon", "midnight", "this", "every"}
"""Words that say when a change happens, not what it changes."""


def _change_words(
    step: StepRecord, earlier: Sequence[StepRecord] = ()
) -> tuple[set[str], set[str], str]:
    """The words that name a write's change, the words among them that name its item (not
    when, not how many), and the change as a phrase: its values (ids aside), or, for a write
    given only ids, what a read of this turn showed for that id — or, when it ran, what its
    result shows."""
    words: set[str] = set()
    _value_words(step.input or {}, words)
    values = [
        str(value)
        for key, value in (step.input or {}).items()
        if not str(key).lower().endswith("id")
        and value not in (None, "", [], {})
        and not isinstance(value, bool)
    ]
    phrase = ", ".join(clip(value, 60) for value in values)
    if not words - _COMMON - _PLAIN:
        shown = _shown_for_ids(step, earlier)
        if not shown and not step.skipped:  # a declined write's result is the refusal
            parts = re.split(r"[|\n]", step.result or "")
            shown = [part.partition(":")[2].strip() for part in parts if ":" in part]
            shown = [field for field in shown if field and field.lower() not in _PLAIN]
        for field in shown:
            _value_words(field, words)
        phrase = ", ".join(clip(field, 60) for field in shown[:3])
    words -= _COMMON | _PLAIN
    naming = {word for word in words if not word[:1].isdigit()} - _WHEN_WORDS
    return words, naming, phrase


def _shown_for_ids(step: StepRecord, earlier: Sequence[StepRecord]) -> list[str]:
    """The fields an earlier read of the turn showed on the line of the id a write was given
    ("1. id: 10, from: Bargain Hunter, subject: Patio sets" for ``email_id=10``), ids aside."""
    ids = [
        str(value)
        for key, value in (step.input or {}).items()
        if str(key).lower().endswith("id") and value not in (None, "")
    ]
    for value in ids:
        pattern = re.compile(rf"\bid: {re.escape(value)}(?:,|$)")
        for read in reversed(earlier):
            for line in (read.result or "").split("\n"):
                if pattern.search(line):
                    fields = [part.strip() for part in line.split(", ")]
                    return [
                        field.partition(": ")[2]
                        for field in fields
                        if ": " in field and not field.partition(": ")[0].lower().endswith("id")
                    ][:3]
    return []


def with_change(text: str, steps: Sequence[StepRecord]) -> str:
    """An answer after a write, with a line naming the change when it names none of it.

    The 1.5B model closes a declined write with "I skipped the task to decline it." and an
    archived email with "the email with ID 5 has been archived": the user cannot tell which
    change was made or not. The turn's last write that ran or that the user declined is named
    after the answer ("Done: archive email: Your order has shipped", "Not done, as you declined:
    delete task: Porto flights") when the answer says no word of what it changes — its
    values' words, the days, times and numbers aside when there are others ("declined to
    create an event for Friday at 21:00" does not say it was drinks with Ines)
    (docs/design.md, "The answer names the change"); a declined write gets the line too when
    the answer names it and says no word of its not being done ("I moved it to the archive."
    over a declined archive). A write skipped for a missing value gets a line saying what it
    needs when the answer neither asks nor says it was not done. A write that failed gets a
    line saying so ("Not done: complete task failed: no open task matches 'high-priority
    work'.") when the answer says no word of failure.
    """
    last = next((s for s in reversed(steps) if s.kind == "tool" and s.writes), None)
    if last is not None and last.failed and last.tool is not None:
        return _with_failure(text, last.tool, last.result or "")
    if last is None or last.cached or last.tool is None:
        return text
    declined = last.skipped and last.skip_reason == "confirmation"
    if last.skipped and last.skip_reason == "missing":
        return _with_missing(text, last.tool, last.result or "")
    if last.skipped and not declined:
        return text
    earlier = [s for s in steps if s.kind == "tool" and not s.writes and s.index < last.index]
    words, naming, phrase = _change_words(last, earlier)
    said = {word.lower() for word in _VALUE_WORD.findall(text)}
    name = last.tool.replace("_", " ")
    head = "Not done, as you declined" if declined else "Done"
    line = f"{head}: {name}: {phrase}." if phrase else f"{head}: {name}."
    if declined and not (_SAYS_NOT_DONE.search(text) or _SAYS_DECLINED.search(text)):
        return _with_line(text, line)  # "I moved it to the archive." over a declined archive
    if not words or (naming or words) & said:  # what was changed, not only when
        return text
    return _with_line(text, line)


_SAYS_DECLINED = re.compile(r"\b(?:declin|skip|refus|cancel|held off|hold off)\w*", re.IGNORECASE)
"""Words an answer uses to say the user turned a change down (beside :data:`_SAYS_NOT_DONE`)."""


_SAYS_NOT_DONE = re.compile(
    r"\b(?:not|no|never|couldn't|could not|can't|cannot|unable|failed|fail|error|sorry|"
    r"didn't|did not|wasn't|was not|isn't|is not|doesn't|does not|nothing|none)\b|n't\b",
    re.IGNORECASE,
)
_ERROR_HEAD = re.compile(r"^\s*error:\s*(?:[A-Za-z_][\w.]*(?:Error|Exception):\s*)?")


def _with_failure(text: str, tool: str, result: str) -> str:
    """An answer after a write that failed, with a line saying so when it says nothing of the
    kind: the 1.5B model answered "Marked the high-priority work task as done." over
    ``complete_task [failed] → error: LookupError: no open task matches ...`` (dev,
    2026-12-05), a change the user would believe was made."""
    if _SAYS_NOT_DONE.search(text):
        return text
    reason = _ERROR_HEAD.sub("", result.split("\n")[0])
    reason = re.split(r"[;]|\. ", reason)[0].strip().rstrip(".")
    name = tool.replace("_", " ")
    line = (
        f"Not done: {name} failed: {clip(reason, 120)}." if reason else f"Not done: {name} failed."
    )
    return _with_line(text, line)


def _with_line(text: str, line: str) -> str:
    """The answer with one line after it (the line alone for an empty answer)."""
    return f"{text.rstrip()}\n{line}" if text.strip() else line


_MISSING_HEAD = re.compile(r"^\s*missing:\s*")


def _with_missing(text: str, tool: str, result: str) -> str:
    """An answer after a write skipped for a value nobody gave: left alone when it asks (a
    question mark) or says it did not happen; otherwise a line saying what the write still
    needs. The 1.5B model answered "I deleted the file 'CV Jordan 2019.docx'." over
    ``delete_file [skipped] → missing: The file's id`` (dev, 2026-12-05, seventh session)."""
    if "?" in text or _SAYS_NOT_DONE.search(text):
        return text
    what = _MISSING_HEAD.sub("", result.split("\n")[0])
    what = what.split(". Ask the user")[0].strip().rstrip(".")
    if what[1:2].islower():  # "The file's id" → "the file's id"; "ID" stays
        what = what[0].lower() + what[1:]
    name = tool.replace("_", " ")
    line = f"Not done: {name} needs {clip(what, 120)}." if what else f"Not done: {name}."
    return _with_line(text, line)


def vague_note() -> str:
    """The retry's note for an answer that names nothing the read returned."""
    return (
        "Your previous reply named nothing from the results above. Answer again from those "
        "results: give what the ask wants from them (the titles, names, times, dates or "
        'numbers, exactly as written there), speaking to the user as "you". Do not mention '
        "this notice."
    )
