"""Placeholder until this command lands."""


def register(app) -> None:
    pass
