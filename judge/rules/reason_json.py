"""The rules engine's reasons (judge.rules.words.Reason) as JSON: how a played phase keeps why each order fared as it
did, so that a later reading (HISTORY) words it in its reader's language as the results mail did, not in the English
of the day it was played.

A reason is its message id and parameters, ``{"msgid": "{where} is occupied", "params": {"where": {"place":
"mos"}}}``; a plain reason (``"bounced"``) is its text. A parameter is a place (``{"place": "mos"}``: the province
or coast named by its abbreviation; ``"abbr": true`` where English names it so too), a power (``{"power":
"France"}``), a reason of its own, a choice (``{"choice": [...]}``: "a or b") or a number or text kept as it is.
Places and powers are kept by what names them, not by their words, so a variant's names are read again when the
reason is worded.
"""

from __future__ import annotations

from typing import Any

from judge.rules.variant import Variant
from judge.rules.words import Named, Reason


def reason_to_json(reason: object) -> Any:
    """``reason`` (a Reason, a plain text or None) as JSON."""
    if reason is None or isinstance(reason, (int, float)):
        return reason
    if isinstance(reason, Named):
        if not reason.abbr:
            return {"power": str(reason)}
        return {"place": reason.abbr, "abbr": True} if str(reason) == reason.abbr else {"place": reason.abbr}
    if isinstance(reason, Reason):
        return {"msgid": reason.msgid, "params": {k: reason_to_json(v) for k, v in reason.params}}
    if isinstance(reason, (tuple, list)):
        return {"choice": [reason_to_json(v) for v in reason]}
    return str(reason)


def reason_from_json(variant: Variant, data: Any) -> Any:
    """The reason ``data`` stands for, its places and powers named as ``variant`` names them now: a Reason, a Named
    (a place or a power), a tuple (a choice), or a number or text as it was kept."""
    if not isinstance(data, dict):
        return data
    if "place" in data:
        loc = variant.geo.by_loc_name.get(str(data["place"]))
        if loc is None:
            return str(data["place"])
        return variant.geo.loc_named(loc, str(data["place"]) if data.get("abbr") else None)
    if "power" in data:
        return variant.power(str(data["power"]))
    if "choice" in data:
        return tuple(reason_from_json(variant, v) for v in data["choice"] or ())
    msgid = str(data.get("msgid") or "")
    params = {str(k): reason_from_json(variant, v) for k, v in (data.get("params") or {}).items()}
    if not params and msgid in variant.powers:  # a power the engine named (judge.rules.words.Name)
        return variant.power(msgid)
    try:
        return Reason(msgid, **params)
    except (KeyError, IndexError, ValueError):  # a message id changed since: the words kept are shown
        return msgid
