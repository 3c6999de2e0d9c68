"""The tool gateway: catalog, progressive disclosure with next_step, approvals (HMAC + TTL), built-in tools."""

from __future__ import annotations

from opsassist.config import LoadedSettings
from opsassist.gateway.approvals import ApprovalBook, ApprovalError, load_secret
from opsassist.gateway.gateway import META_TOOL_NAMES, META_TOOLS, Gateway, record_event
from opsassist.gateway.tools import Catalog, load_user_tools
from opsassist.store import Store

__all__ = ["META_TOOLS", "META_TOOL_NAMES", "ApprovalBook", "ApprovalError", "Gateway", "open_gateway", "record_event"]


def open_gateway(store: Store, session_id: str, loaded: LoadedSettings) -> Gateway:
    """The gateway for one session, with the person's tools and the install's approval key."""
    settings = loaded.settings
    catalog = Catalog.build(load_user_tools(loaded.paths.config_dir / "tools.toml"), settings.disabled_tools)
    loaded.paths.data_dir.mkdir(parents=True, exist_ok=True)
    approvals = ApprovalBook(store, load_secret(loaded.paths.secret_file), settings.approval_ttl_seconds)
    return Gateway(store, session_id, settings, catalog, approvals)
