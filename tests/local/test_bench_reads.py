"""`python -m bench reads` (bench/reads.py) groups a request's DynamoDB calls into
rounds by their start and end times: calls in flight together are one round, calls one after
another one round each. Synthetic timestamps only: nothing here times a real request."""

from __future__ import annotations

from bench.reads import chain, rounds


def test_sequential_calls_are_a_round_each():
    assert rounds([(0.0, 1.0), (1.0, 2.0), (2.5, 3.0)]) == [[0], [1], [2]]


def test_overlapping_calls_are_one_round():
    # A parallel BatchGetItem round: three calls started before any of them finished.
    assert rounds([(0.0, 1.0), (0.1, 1.2), (0.2, 0.9)]) == [[0, 1, 2]]


def test_a_parallel_round_between_sequential_calls():
    spans = [(0.0, 1.0),  # token
             (1.1, 2.0), (1.2, 2.4), (1.15, 1.9),  # three reads at once
             (2.5, 3.0)]  # then one that needed them
    assert rounds(spans) == [[0], [1, 3, 2], [4]]


def test_a_call_overlapping_only_the_longest_of_its_round_joins_it():
    # The round lasts until its last call ends: a call starting before that is in it.
    assert rounds([(0.0, 5.0), (1.0, 2.0), (3.0, 4.0), (5.0, 6.0)]) == [[0, 1, 2], [3]]


def test_order_of_the_log_does_not_matter_and_nothing_is_none():
    assert rounds([(2.0, 3.0), (0.0, 1.0)]) == [[1], [0]]
    assert rounds([]) == []


def test_sequential_round_trips_are_the_longest_chain_of_calls():
    assert chain([]) == 0
    assert chain([(0.0, 1.0), (1.0, 2.0), (2.5, 3.0)]) == 3
    assert chain([(0.0, 1.0), (0.1, 1.2), (0.2, 0.9)]) == 1
    # A read started early and needed late overlaps two later steps: grouping by overlap
    # makes them one round, but the page still waited for three calls one after another.
    spans = [(0.0, 1.0), (0.0, 2.5),  # the feed query, and the feed's state beside it
             (1.1, 2.0),  # the statuses, after the query
             (2.1, 3.0)]  # what renders them, after the statuses
    assert len(rounds(spans)) == 1
    assert chain(spans) == 3
