from drivers import ws2812
from drivers.ht16k33 import HT16K33
from mjsim.chipsim.ht16k33_sim import HT16K33Sim
from mjsim.chipsim.i2c import I2CBusSim
from table import alerts
from table.display import S_DINGQUE, S_EXCHANGE, S_WON, TableDisplay, pay_text, score_text


class NP:
    def __init__(self, n):
        self.buf = [(0, 0, 0)] * n
        self.writes = 0

    def __len__(self):
        return len(self.buf)

    def __setitem__(self, i, c):
        self.buf[i] = c

    def write(self):
        self.writes += 1


def rig():
    bus = I2CBusSim()
    sims = [bus.attach(0x70 + s, HT16K33Sim()) for s in range(4)]
    ds = [HT16K33(bus, 0x70 + s) for s in range(4)]
    for d in ds:
        d.init()
    leds = ws2812.SeatLeds(NP(12), 4)
    return bus, sims, TableDisplay(ds, leds, pay_ms=1000), leds


def test_texts():
    assert score_text(25) == "  25" and score_text(-7, 1) == "  .-7"
    assert score_text(12345) == "9999" and score_text(-5000) == "-999"
    assert pay_text(12) == " u12" and pay_text(-6) == "  -6" and pay_text(-999) == "-999"


def test_score_with_void_point_and_turn_colon():
    bus, sims, td, leds = rig()
    td.show(0, 0, 25, turn=True, void=2)
    assert sims[0].text() == "  2.5" and sims[0].colon()
    assert leds.state(0) == ws2812.TURN
    td.show(1, 0, -12, void=0)
    assert sims[1].text() == " .-12" and not sims[1].colon()


def test_alert_wins_over_everything_and_blinks():
    bus, sims, td, leds = rig()
    td.show(2, 0, 10, prompt=3, alert=alerts.VOID)
    assert sims[2].text() == "quE " and sims[2].blink == 1
    assert leds.state(2) == ws2812.ALERT
    td.show(2, 0, 10, prompt=3)
    assert sims[2].text() == "HP  " and sims[2].blink == 2
    assert leds.state(2) == ws2812.CLAIM
    td.show(2, 0, 10)
    assert sims[2].text() == "  10" and sims[2].blink == 0


def test_payments_show_then_revert():
    bus, sims, td, leds = rig()
    td.payment(3, -4, 100)
    td.payment(3, -2, 200)
    td.show(3, 300, 44)
    assert sims[3].text() == "  -6"
    td.show(3, 1300, 44)
    assert sims[3].text() == "  44"


def test_setup_steps_and_won():
    bus, sims, td, leds = rig()
    td.show(0, 0, 0, state=S_EXCHANGE)
    td.show(1, 0, 0, state=S_DINGQUE)
    td.show(2, 0, 5, state=S_WON)
    assert sims[0].text() == "C3  " and sims[1].text() == "q-  "
    assert leds.state(0) == ws2812.WAIT and leds.state(2) == ws2812.HU
    td.text = "End "
    td.show(3, 0, 9)
    assert sims[3].text() == "End "


def test_unchanged_state_writes_nothing():
    bus, sims, td, leds = rig()
    td.show(0, 0, 7, turn=True)
    n = bus.transactions
    for t in range(10):
        td.show(0, t, 7, turn=True)
    assert bus.transactions == n
    td.show(0, 20, 8, turn=True)
    assert bus.transactions > n


def test_unplugged_display_is_retried():
    bus, sims, td, leds = rig()
    bus.detach(0x71)
    td.show(1, 0, 3)
    assert td.failed[1] == 1
    bus.attach(0x71, sims[1])
    td.show(1, 0, 3)
    assert td.failed[1] == 0 and sims[1].text() == "   3"
