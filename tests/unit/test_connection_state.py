"""The connection state machine of the client runtime, on its own (domain.connection_state)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mcp.domain.connection_state import (
    DISCONNECT_REASON,
    TRANSITIONS,
    ConnectionEvent,
    ConnectionPhase,
    ConnectionState,
    IllegalConnectionTransition,
    transition,
)

P = ConnectionPhase
E = ConnectionEvent

EXPECTED_ROWS = {
    (P.IDLE, E.START): P.CONNECTING,
    (P.IDLE, E.RETIRE): P.IDLE,
    (P.CONNECTING, E.OPENED): P.OPEN,
    (P.CONNECTING, E.OPENED_CLOSED): P.DROPPED,
    (P.CONNECTING, E.CONNECT_FAILED): P.FAILED,
    (P.CONNECTING, E.TRANSPORT_CLOSED): P.CONNECTING,
    (P.CONNECTING, E.RETIRE): P.CONNECTING,
    (P.OPEN, E.TRANSPORT_CLOSED): P.DROPPED,
    (P.OPEN, E.HOLD_ENDED): P.CLOSED,
    (P.OPEN, E.RETIRE): P.OPEN,
    (P.DROPPED, E.TRANSPORT_CLOSED): P.DROPPED,
    (P.DROPPED, E.HOLD_ENDED): P.CLOSED,
    (P.DROPPED, E.RETIRE): P.DROPPED,
    (P.CLOSED, E.TRANSPORT_CLOSED): P.CLOSED,
    (P.CLOSED, E.RETIRE): P.CLOSED,
    (P.FAILED, E.TRANSPORT_CLOSED): P.FAILED,
    (P.FAILED, E.RETIRE): P.FAILED,
}
ILLEGAL = sorted(
    (pair for pair in itertools.product(P, E) if pair not in EXPECTED_ROWS),
    key=lambda pair: (pair[0].value, pair[1].value),
)


def test_the_table_is_exactly_the_documented_rows() -> None:
    assert TRANSITIONS == EXPECTED_ROWS


@pytest.mark.parametrize(("phase", "event"), list(EXPECTED_ROWS), ids=lambda v: v.value)
def test_every_row_of_the_table_leads_to_its_next_phase(phase: ConnectionPhase, event: ConnectionEvent) -> None:
    after = transition(ConnectionState(phase), event)
    assert after.phase is EXPECTED_ROWS[(phase, event)]
    assert after.retiring is (event is E.RETIRE)
    assert after.closed_notice is (event is E.TRANSPORT_CLOSED)


@pytest.mark.parametrize(("phase", "event"), ILLEGAL, ids=lambda v: v.value)
def test_an_event_outside_the_table_is_refused(phase: ConnectionPhase, event: ConnectionEvent) -> None:
    state = ConnectionState(phase)
    with pytest.raises(IllegalConnectionTransition) as caught:
        transition(state, event)
    assert str(caught.value) == f"connection event {event.value!r} is not allowed in phase {phase.value!r}"
    assert (caught.value.phase, caught.value.event) == (phase, event)


def test_a_new_connection_is_idle_and_not_started() -> None:
    state = ConnectionState()
    assert (state.phase, state.started, state.connecting, state.connected) == (P.IDLE, False, False, False)
    assert state.disconnect_reason is None and state.stale and not state.connect_finished


def test_a_connection_that_opens_is_connected_until_its_transport_closes() -> None:
    state = transition(transition(ConnectionState(), E.START), E.OPENED)
    assert state.connected and state.connect_finished and state.disconnect_reason is None and not state.stale
    dropped = transition(state, E.TRANSPORT_CLOSED)
    assert not dropped.connected and dropped.disconnect_reason == DISCONNECT_REASON and dropped.stale


def test_a_connect_that_opens_an_already_closed_transport_is_dropped() -> None:
    state = transition(transition(ConnectionState(), E.START), E.OPENED_CLOSED)
    assert state.phase is P.DROPPED and state.disconnect_reason == "mcp transport closed"


def test_a_failed_connect_has_no_disconnect_reason_unless_the_transport_reported_a_close() -> None:
    started = transition(ConnectionState(), E.START)
    assert transition(started, E.CONNECT_FAILED).disconnect_reason is None
    noticed = transition(started, E.TRANSPORT_CLOSED)
    assert noticed.connecting and noticed.disconnect_reason == DISCONNECT_REASON
    assert transition(noticed, E.CONNECT_FAILED).disconnect_reason == DISCONNECT_REASON


def test_a_retiring_connection_keeps_its_phase_and_is_never_stale() -> None:
    state = transition(transition(transition(ConnectionState(), E.START), E.OPENED), E.RETIRE)
    assert state.retiring and state.connected and not state.stale
    closed = transition(state, E.HOLD_ENDED)
    assert closed.retiring and closed.phase is P.CLOSED and not closed.stale


# ---------------------------------------------------------------------------------------------- properties

TERMINAL = {P.CLOSED, P.FAILED}


def _walk(events: list[ConnectionEvent]) -> list[ConnectionState]:
    """The states visited, skipping the events the current phase refuses."""
    states = [ConnectionState()]
    for event in events:
        try:
            states.append(transition(states[-1], event))
        except IllegalConnectionTransition:
            assert (states[-1].phase, event) not in TRANSITIONS
    return states


@settings(max_examples=400, deadline=None)
@given(events=st.lists(st.sampled_from(list(E)), max_size=30))
def test_any_event_sequence_respects_the_lifecycle_invariants(events: list[ConnectionEvent]) -> None:
    states = _walk(events)
    for before, after in itertools.pairwise(states):
        # the marks are sticky, and a terminal phase is never left
        assert before.retiring <= after.retiring and before.closed_notice <= after.closed_notice
        if before.phase in TERMINAL:
            assert after.phase is before.phase
        # a finished connect attempt never becomes unfinished again; a started connection never idles again
        assert before.connect_finished <= after.connect_finished
        assert before.started <= after.started
        # a disconnect reason, once given, stays
        assert before.disconnect_reason is None or after.disconnect_reason == DISCONNECT_REASON
    for state in states:
        assert not (state.connected and state.connecting)
        assert state.connected == (state.phase is P.OPEN)
        assert state.stale == (not state.retiring and not state.connected and not state.connecting)


@settings(max_examples=200, deadline=None)
@given(events=st.lists(st.sampled_from(list(E)), max_size=30))
def test_a_connection_is_open_only_after_start_and_a_successful_connect(events: list[ConnectionEvent]) -> None:
    states = _walk(events)
    for index, state in enumerate(states):
        if state.phase is P.OPEN:
            phases = [earlier.phase for earlier in states[:index]]
            assert P.CONNECTING in phases and P.DROPPED not in phases and not (TERMINAL & set(phases))


@given(phase=st.sampled_from(list(P)), event=st.sampled_from(list(E)))
def test_transition_is_total_over_the_table_and_refuses_the_rest(
    phase: ConnectionPhase, event: ConnectionEvent
) -> None:
    state = ConnectionState(phase)
    if (phase, event) in TRANSITIONS:
        assert transition(state, event).phase is TRANSITIONS[(phase, event)]
    else:
        with pytest.raises(IllegalConnectionTransition):
            transition(state, event)
