"""Pure: the plan's rules, each a small step returning typed reasons (:mod:`.reasons`), and
the record they are assembled into (:mod:`.decision`); :func:`evalbot.plan.policy.evaluate` runs
them in order.

- :mod:`.plan`: the registered size and item set, the sealed holdout analysed whole;
- :mod:`.looks`: which look this run is, re-runs, looks past ``max_looks``, shopping for
  items, the holdout's uses;
- :mod:`.power`: the test against alpha, ``policy.min_effect``, powerless and identical runs;
- :mod:`.gate`: the gate's conditions; :mod:`.notes`: disclosures and warnings."""
