"""The APScheduler side: timers that know no job (timers.py) and reminder delivery (delivery.py:
claim, send, late, retry). Which periodic jobs run is decided in bot/app.py."""
