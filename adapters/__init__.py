"""Adapters that plug moca_agui into agent frameworks, each registered through pluggy."""
