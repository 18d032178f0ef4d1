"""The rules edition a game is adjudicated by: a typed value passed into adjudication, never a global.

- ``2000``: the 2000 rulebook as the DATC v2.4 prefers (the default; every game before editions were known).
- ``datc-3``: the changes DATC v3.0 (2024, the 2023 rulebook) made to those preferences:

  * an army ordered "via convoy" goes by convoy or not at all: with no convoy ordered it does not fall back to the land
    route (DATC 6.G.8; 6.G.20 and 6.G.11 already had no fallback in v2.4);
  * a convoy order by a fleet that is necessary for no convoy route of the army is illegal, so it shows no intent to
    convoy (DATC 6.G.19);
  * civil disorder measures a unit's distance to the power's nearest *owned* centre, armies and fleets alike moving
    over land and sea (DATC 6.J, the 2023 rule).

  A unit dislodged by a convoyed attack may retreat to the attacker's origin in both editions (DATC issue 4.A.5: the
  v2.4 preference already allowed it).
"""

from __future__ import annotations

from enum import StrEnum


class RulesEdition(StrEnum):
    Y2000 = "2000"
    DATC3 = "datc-3"


DEFAULT_EDITION = RulesEdition.Y2000
