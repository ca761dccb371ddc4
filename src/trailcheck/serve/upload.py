"""An HTTP request body read under admission (:mod:`trailcheck.serve.admission`): admitted before
a byte is read, each chunk counted as it arrives, cut off when the watchdog finds it overdue, and
a client that leaves mid-body told apart from a failure.

The outcomes the endpoint answers or logs, besides the body itself: a refusal (503 when it is not
admitted or its chunks pass the bytes left; 413 past the body limit), :class:`UploadCutOff` (a
408 that closes the connection) and :class:`ClientLeft` (nothing to answer: a one-line warning
with the peer and the bytes read, never a traceback).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final

from fastapi import Response
from fastapi.responses import JSONResponse
from starlette.types import Message, Receive

from trailcheck.serve.admission import Admission, Upload
from trailcheck.serve.body import read_capped

__all__ = ["ClientLeft", "HttpUpload", "UploadCutOff", "admitted_upload", "cut_off_response"]

_REQUEST_TIMEOUT: Final = 408
_DEADLINE_EXCEEDED: Final = 4  # google.rpc.Code


def _progress(upload: Upload) -> str:
    of = f" of {upload.declared}" if upload.declared is not None else ""
    return f"{upload.received}{of} bytes"


class UploadCutOff(Exception):  # noqa: N818 (an outcome the endpoint answers, not a bug)
    """The body was overdue and was cut off; the message says after how much, and why."""

    def __init__(self, upload: Upload) -> None:
        super().__init__(f"the body was cut off after {_progress(upload)}: {upload.cut_reason}")


class ClientLeft(Exception):  # noqa: N818
    """The client disconnected before its body was whole."""

    def __init__(self, upload: Upload) -> None:
        super().__init__(f"the client disconnected after {_progress(upload)} of its body")


@dataclass
class HttpUpload:
    """An admitted upload and the event its cut-off sets."""

    admission: Admission
    upload: Upload
    cut: asyncio.Event

    async def read(self, receive: Receive, max_bytes: int) -> bytes:
        """The whole body: RequestRefused (413 past ``max_bytes``, 503 when undeclared bytes
        do not fit), UploadCutOff, or ClientLeft."""
        stop: asyncio.Future[bool] = asyncio.ensure_future(self.cut.wait())
        try:
            body = await read_capped(self._chunks(receive, stop), max_bytes)
        finally:
            stop.cancel()
        self.admission.received_whole(self.upload)
        return body

    async def _chunks(self, receive: Receive, stop: asyncio.Future[bool]) -> AsyncIterator[bytes]:
        while True:
            message = await self._next(receive, stop)
            if message["type"] == "http.disconnect":
                raise ClientLeft(self.upload)
            chunk: bytes = message.get("body", b"")
            if chunk:
                self.admission.receive(self.upload, len(chunk))
                yield chunk
            if not message.get("more_body", False):
                return

    async def _next(self, receive: Receive, stop: asyncio.Future[bool]) -> Message:
        """The next ASGI message, unless the upload is cut off first."""
        getting: asyncio.Future[Message] = asyncio.ensure_future(receive())
        await asyncio.wait((getting, stop), return_when=asyncio.FIRST_COMPLETED)
        if getting.done():
            return getting.result()
        getting.cancel()
        raise UploadCutOff(self.upload)


@contextlib.asynccontextmanager
async def admitted_upload(
    admission: Admission, peer: str, declared: int | None
) -> AsyncIterator[HttpUpload]:
    """Admit an upload of ``declared`` bytes (None: not declared, counted as they come) for the
    block, or RequestRefused (503); released when the block ends, answered or not."""
    loop = asyncio.get_running_loop()
    cut = asyncio.Event()

    def cancel() -> None:  # called by the watch, from whichever thread runs it
        loop.call_soon_threadsafe(cut.set)

    upload = admission.admit(peer, declared or 0, cancel, declared=declared)
    try:
        yield HttpUpload(admission, upload, cut)
    finally:
        admission.release(upload)


def cut_off_response(error: UploadCutOff) -> Response:
    """408 with the reason as ``google.rpc.Status`` JSON, closing the connection: what is left
    of the body is not read."""
    body = {"code": _DEADLINE_EXCEEDED, "message": str(error)}
    return JSONResponse(body, status_code=_REQUEST_TIMEOUT, headers={"Connection": "close"})
