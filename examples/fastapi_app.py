"""Goliath inside a FastAPI app (asyncio): the agent's Trio runtime runs as a guest of
uvicorn's event loop.

    uvicorn examples.fastapi_app:app          # GOLIATH_MODEL=openai:URL#MODEL to pick a model

``POST /ask`` answers with the whole ``RunResult`` as JSON; ``POST /ask/stream`` streams the
answer's text as the model writes it (plain text, one piece per chunk).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pydantic
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from goliath import Agent, tool
from goliath.memory import InMemory
from goliath.streaming import TokenEvent

SHOP_HOURS = {"monday": "9-17", "saturday": "10-14", "sunday": "closed"}


@tool
def opening_hours(day: str) -> str:
    """Opening hours of the shop on one day.

    Args:
        day: the weekday, e.g. "monday".
    """
    return SHOP_HOURS.get(day.lower(), "9-17")


agent = Agent(
    os.environ.get("GOLIATH_MODEL", "local"),  # a spec: resolved when the agent starts
    tools=[opening_hours],
    memory=lambda conversation_id: InMemory(),
)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    async with agent:  # under asyncio: Trio guest mode inside uvicorn's loop
        yield


app = FastAPI(title="Shop assistant", lifespan=lifespan)


class Ask(pydantic.BaseModel):
    ask: str
    conversation_id: str = "web"


@app.post("/ask")
async def ask(body: Ask) -> dict[str, Any]:
    result = await agent.run(body.ask, conversation_id=body.conversation_id)
    return result.to_dict()


@app.post("/ask/stream")
async def ask_stream(body: Ask) -> StreamingResponse:
    async def pieces() -> AsyncIterator[str]:
        async for event in agent.run_stream(body.ask, conversation_id=body.conversation_id):
            if isinstance(event, TokenEvent):
                yield event.text

    return StreamingResponse(pieces(), media_type="text/plain; charset=utf-8")
