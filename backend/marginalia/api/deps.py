"""Typed dependencies shared by the routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from marginalia.config import Settings
from marginalia.db import Database
from marginalia.jobs.service import JobService
from marginalia.services.container import Services


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def get_db(services: Annotated[Services, Depends(get_services)]) -> Database:
    return services.db


def get_jobs(services: Annotated[Services, Depends(get_services)]) -> JobService:
    return services.jobs


def get_app_settings(services: Annotated[Services, Depends(get_services)]) -> Settings:
    return services.settings


ServicesDep = Annotated[Services, Depends(get_services)]
DatabaseDep = Annotated[Database, Depends(get_db)]
JobsDep = Annotated[JobService, Depends(get_jobs)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
