"""Accounts of multi mode: users, passwords, API tokens, browser sessions, grants, and the
rules of the account and admin pages (who may change what).

Callers: the ``quire user …`` commands and, in multi mode, the server's sign-in, account and
admin routes.
"""
