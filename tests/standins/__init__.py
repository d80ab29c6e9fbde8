"""Local stand-ins for the platforms and services the bot talks to, run on 127.0.0.1 in tests.

Each stand-in speaks the real wire format, so the real client libraries (python-telegram-bot,
discord.py, the Anthropic SDK) run unmodified against them.
"""
