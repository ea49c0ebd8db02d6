"""The referee's tools over the rules core: the calculator (calc), what a
score counts by name (patnames), settlement scripts (script), simulated hands
(simcore), and the same run in the MicroPython unix port (mpengine with its
drivers mp_calc and mp_sim)."""
