"""Build the configured provider. The one place that maps a provider name to a class.

Provider modules are imported on demand: the anthropic SDK takes seconds to import and
the offline default should not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable

from marginalia.config import LLMSettings
from marginalia.llm.base import LLMProvider
from marginalia.llm.errors import LLMConfigError
from marginalia.llm.usage import UsageLedger

ProviderFactory = Callable[[LLMSettings, UsageLedger | None], LLMProvider]


def _offline(settings: LLMSettings, usage: UsageLedger | None) -> LLMProvider:
    from marginalia.llm.offline import OfflineProvider

    return OfflineProvider.from_settings(settings, usage=usage)


def _anthropic(settings: LLMSettings, usage: UsageLedger | None) -> LLMProvider:
    from marginalia.llm.anthropic_provider import AnthropicProvider

    return AnthropicProvider.from_settings(settings, usage=usage)


def _openai(settings: LLMSettings, usage: UsageLedger | None) -> LLMProvider:
    from marginalia.llm.openai_provider import OpenAICompatibleProvider

    return OpenAICompatibleProvider.from_settings(settings, usage=usage)


PROVIDERS: dict[str, ProviderFactory] = {
    "offline": _offline,
    "anthropic": _anthropic,
    "openai": _openai,
}


def make_provider(settings: LLMSettings, *, usage: UsageLedger | None = None) -> LLMProvider:
    """The provider named by ``settings.provider`` (offline by default).

    Raises LLMConfigError when the settings cannot make it (e.g. anthropic without a key).
    """
    try:
        factory = PROVIDERS[settings.provider]
    except KeyError:
        raise LLMConfigError(
            f"unknown LLM provider {settings.provider!r}; choose one of {sorted(PROVIDERS)}"
        ) from None
    return factory(settings, usage)
