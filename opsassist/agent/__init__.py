"""The agent layer: model calls through litellm (imported lazily), token accounting, the loop."""
