"""machine.Pin stand-ins. A PinSim is an output or input the test sets; the
chip simulators hang callbacks on the pins they watch (NSS, RST, antenna
select) and provide computed inputs (BUSY)."""


class PinSim:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, value=0, on_change=None, name=""):
        self._v = 1 if value else 0
        self.on_change = on_change
        self.name = name
        self.writes = 0

    def value(self, v=None):
        if v is None:
            return self._v
        v = 1 if v else 0
        self.writes += 1
        old = self._v
        self._v = v
        if old != v and self.on_change is not None:
            self.on_change(v)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def init(self, *args, **kwargs):
        pass


class ComputedPin(PinSim):
    """An input whose level a chip computes on each read (e.g. PN5180 BUSY)."""

    def __init__(self, read, name=""):
        super().__init__(0, None, name)
        self._read = read

    def value(self, v=None):
        if v is not None:
            raise OSError(1, "input pin %s is driven by the chip" % self.name)
        return self._read()
