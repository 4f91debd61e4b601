"""A submission's receipt in words: what ``pbem submit`` and the demo print for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbem.store import Receipt

__all__ = ["describe_receipt"]


def describe_receipt(r: Receipt) -> list[str]:
    """What happened to a submission, in lines for a person (``pbem submit``, the demo, the computer)."""
    who = f"{r.side}'s orders for step {r.step}" if r.side else "the submission"
    if r.verdict.value == "accepted":
        lines = [f"accepted: submission #{r.submission}, {who}"
                 + (f" (replaces submission #{r.related})" if r.related else "")]
        if r.resolved:
            lines.append(f"step {r.step} resolved; step {r.next_step} is next: {r.next_title}")
        elif r.waiting_for:
            lines.append(f"sealed until step {r.step} resolves; it waits for {', '.join(r.waiting_for)}")
        else:
            lines.append(f"step {r.step} has been resolved since")
        for e in r.errors:  # warnings: accepted, but a plan line can never be carried out
            lines += [f"  line {e['line']}: {e['text']}", f"    {e['message']}"]
        return lines
    if r.verdict.value == "duplicate":
        return [f"duplicate: submission #{r.submission} is an exact resend of submission #{r.related}; nothing changed"]
    if r.verdict.value == "superseded":
        return [f"superseded: submission #{r.submission} was replaced by submission #{r.related}"]
    head = f"rejected: submission #{r.submission}" + (f" ({r.side}, step {r.step})" if r.side else "")
    lines = [f"{head}: {r.reason}"]
    for e in r.errors:
        if e["line"]:
            lines.append(f"  line {e['line']}: {e['text']}")
            lines.append(f"    {e['message']}")
        else:
            lines.append(f"  - {e['message']}")
    if r.stands:
        lines.append(f"your submission #{r.stands} for step {r.step} still stands; send corrected orders to replace it")
    return lines
