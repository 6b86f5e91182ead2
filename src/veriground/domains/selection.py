"""Choosing a profile and applying it: threshold overrides onto the verification config, and a suggestion from the
corpus's source types and folder names (shown to the user, never applied silently)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from veriground.config import VerificationConfig
from veriground.domains.profiles import DEFAULT_DOMAIN, PROFILES, DomainProfileSpec, get_profile
from veriground.errors import ConfigError


def apply_threshold_overrides(config: VerificationConfig, profile: DomainProfileSpec | str) -> VerificationConfig:
    """`config` with the profile's threshold overrides; a key the config lacks is a ConfigError."""
    profile = get_profile(profile)
    unknown = sorted(set(profile.threshold_overrides) - set(VerificationConfig.model_fields))
    if unknown:
        raise ConfigError(
            f"domain profile {profile.name!r} overrides unknown verification keys {unknown}; "
            f"valid keys: {', '.join(sorted(VerificationConfig.model_fields))}"
        )
    return VerificationConfig.model_validate({**config.model_dump(), **profile.threshold_overrides})


def suggest_domain(source_types: Iterable[str], folder_names: Iterable[str]) -> tuple[str, str]:
    """The profile the corpus looks like, and why, from its documents' source types and top-level folder names."""
    votes: Counter[str] = Counter()
    folders = [name.lower() for name in folder_names]
    types = [str(kind) for kind in source_types]
    for profile in PROFILES.values():
        votes[profile.name] += sum(any(word in folder for word in profile.folder_words) for folder in folders)
    if not votes or max(votes.values()) == 0:
        policy_share = types.count("policy") / len(types) if types else 0.0
        if policy_share > 0.5:
            return "policy", f"{policy_share:.0%} of the documents have source_type policy"
        return DEFAULT_DOMAIN, "no folder name or source type points to a domain"
    ranked = sorted(votes.items(), key=lambda item: (-item[1], item[0]))
    name, count = ranked[0]
    if len(ranked) > 1 and ranked[1][1] == count:
        return DEFAULT_DOMAIN, f"folders point to several domains ({ranked[0][0]}, {ranked[1][0]})"
    return name, f"{count} folder name(s) match the {name} profile's words"
