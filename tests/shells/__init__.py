"""Completion scripts run in real shells (bash, zsh, fish, PowerShell)."""
