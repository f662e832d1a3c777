"""Dialogs: chip catalog editor, export, help."""
