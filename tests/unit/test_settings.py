from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from marginalia.config import Settings


def test_env_prefix_and_nested(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MARGINALIA_LLM__PROVIDER", "anthropic")
    monkeypatch.setenv("MARGINALIA_INGEST__MAX_UPLOAD_MB", "7")
    s = Settings()
    assert s.llm.provider == "anthropic"
    assert s.ingest.max_upload_mb == 7


def test_service_urls_accept_conventional_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:hunter2@db.example/x")
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/3")
    s = Settings()
    assert s.database_url is not None
    assert s.database_url.get_secret_value().endswith("@db.example/x")
    assert s.redis_url == "redis://127.0.0.1:6379/3"


def test_invalid_value_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MARGINALIA_LLM__PROVIDER", "gpt-hype")
    with pytest.raises(ValueError, match="provider"):
        Settings()


def test_masked_hides_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:hunter2@db.example/x")
    monkeypatch.setenv("MARGINALIA_LLM__ANTHROPIC_API_KEY", "sk-ant-secret")
    dumped = json.dumps(Settings().masked())
    assert "hunter2" not in dumped
    assert "sk-ant-secret" not in dumped
    assert "postgresql://u:***@db.example/x" in dumped


def test_config_command_prints_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    from marginalia.cli.app import app
    from marginalia.config import reset_settings_cache

    monkeypatch.setenv("MARGINALIA_SOURCES__BRAVE_API_KEY", "brave-secret")
    reset_settings_cache()
    try:
        result = CliRunner().invoke(app, ["config", "--json"])
        described = CliRunner().invoke(app, ["config"])
    finally:
        monkeypatch.delenv("MARGINALIA_SOURCES__BRAVE_API_KEY")
        reset_settings_cache()
    assert result.exit_code == 0, result.output
    assert "brave-secret" not in result.output
    assert json.loads(result.output)["sources"]["brave_api_key"] == "**********"
    assert described.exit_code == 0, described.output
    assert "brave-secret" not in described.output
    # Every value with what it means and the variable that sets it.
    assert "sources.brave_api_key = **********" in described.output
    assert "Brave Search API key" in described.output
    assert "(MARGINALIA_ANSWER__HISTORY_MESSAGES)" in described.output


def test_every_setting_describes_itself() -> None:
    rows = Settings().described()
    assert len(rows) > 40
    assert [name for name, _value, description in rows if not description.strip()] == []
