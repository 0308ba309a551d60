"""Settings for the whole suite.

Hypothesis measures by the wall clock how long generating examples takes (``HealthCheck.too_slow``)
and how long each example runs (``deadline``): on a busy machine both grow several times over with
nothing wrong, so neither may fail a test here. Settings objects built in test modules start from
this profile; one that lists its own health checks to suppress must name ``too_slow`` again.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("arena", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("arena")
