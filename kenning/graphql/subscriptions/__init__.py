"""Subscriptions served to many at once: identical subscriptions form a cohort that runs each
event once (``cohorts.py``), and its result is encoded once and written to every member
(``fan_out.py``), through the caches one app owns (``sharing.py``: ``SubscriptionFanOut``).
"""
