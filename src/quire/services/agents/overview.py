"""Everything the Connect page and ``quire connect`` show at once: each agent's status and
the hooks', gathered once as the API's ``AgentsOverview``.
"""

from __future__ import annotations

from quire.api.agents import AgentsOverview
from quire.services.agents import hooks, roster
from quire.services.agents.machine import Machine


def overview(machine: Machine) -> AgentsOverview:
    """Ask every installed agent what it runs and read the hooks; changes nothing."""
    return AgentsOverview(agents=tuple(roster.statuses(machine)), hook=hooks.hook_status(machine))
