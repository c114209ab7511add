"""Each component's clock (ComponentBudget): time charged per component, a floor once spent."""
import time

from eigensparse._budget import ComponentBudget


def test_each_component_is_charged_its_own_solves_only():
    b = ComponentBudget(10.0)
    b.start(0)
    time.sleep(0.02)
    b.stop(0)
    b.start(1)
    b.stop(1)
    assert 0.02 <= b.used[0] < 1.0 and b.used[1] < b.used[0]
    assert 9.0 < b.left(0) <= 10.0 - 0.02 and b.left(1) > b.left(0)
    b.stop(2)  # never started: nothing charged
    assert 2 not in b.used


def test_a_spent_component_gets_the_floor():
    b = ComponentBudget(0.01)
    b.start(0)
    time.sleep(0.03)
    assert b.left(0) == ComponentBudget.FLOOR  # while running
    b.stop(0)
    assert b.left(0) == ComponentBudget.FLOOR
