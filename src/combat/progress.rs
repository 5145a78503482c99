//! Progress from fighting: XP routed by style, Hitpoints XP, and `MaxHealth`
//! following the Hitpoints level.

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::defs::{CombatSettings, DamageType, Skill, Style};
use super::record::{CombatRecord, PROGRESS};
use super::runtime::CombatRuntime;
use crate::gas::Gas;

/// XP per damage point as `(weapon skill, Defense)` for an attack of
/// `damage_type` in `style`, from the settings' routing matrix. Magic's
/// split is the same shape, scaled to magic's lower total. The total is the
/// same for every style, so the style is a training choice, never an
/// efficiency one.
pub fn xp_routing(settings: &CombatSettings, damage_type: DamageType, style: Style) -> (f64, f64) {
    let (weapon, defense) = match (style, damage_type.skill()) {
        (Style::Aggressive, _) => settings.routing_aggressive,
        (Style::Defensive, Skill::Melee) => settings.routing_defensive_melee,
        (Style::Defensive, _) => settings.routing_defensive_other,
        (Style::Controlled, _) => settings.routing_controlled,
    };
    if damage_type == DamageType::Magic {
        let total = settings.routing_aggressive.0 + settings.routing_aggressive.1;
        let scale = if total > 0.0 {
            settings.magic_xp_per_damage / total
        } else {
            0.0
        };
        (weapon * scale, defense * scale)
    } else {
        (weapon, defense)
    }
}

/// `MaxHealth` for a Hitpoints level: the curve's entry when it has one,
/// else `level × multiplier`.
pub fn max_health_for_level(settings: &CombatSettings, level: u32) -> f64 {
    settings
        .max_health_curve
        .get(level.saturating_sub(1) as usize)
        .copied()
        .unwrap_or(f64::from(level) * settings.max_health_per_hitpoints_level)
}

/// Hundredths of `value`, rounded half away from zero; none for a
/// negative value or NaN, and saturating at `u64::MAX`.
fn centi(value: f64) -> u64 {
    crate::rounding::round_to_u64(value * 100.0)
}

/// Grants the XP for `damage` points dealt by `attacker`: style-routed XP
/// to the weapon skill and Defense, plus Hitpoints XP. A Hitpoints level-up
/// rewrites `MaxHealth`'s base.
pub(crate) fn grant_damage_xp(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    attacker: Entity,
    damage_type: DamageType,
    style: Style,
    damage: f64,
) {
    let settings = &runtime.defs().settings;
    let (weapon, defense) = xp_routing(settings, damage_type, style);
    let grants = [
        (damage_type.skill(), centi(damage * weapon)),
        (Skill::Defense, centi(damage * defense)),
        (
            Skill::Hitpoints,
            centi(damage * settings.hitpoints_xp_per_damage),
        ),
    ];
    let mut level_ups = Vec::new();
    {
        let Ok(combatant) = world.query_one_mut::<&mut Combatant>(attacker) else {
            return;
        };
        for (skill, amount) in grants {
            if amount == 0 {
                continue;
            }
            if let Some(level) = combatant.skills.add_centi_xp(skill, amount) {
                level_ups.push((skill, level));
            }
        }
    }
    for (skill, centi_xp) in grants.into_iter().filter(|(_, a)| *a > 0) {
        gas.record_game_with(PROGRESS, || CombatRecord::Xp {
            entity: attacker,
            skill,
            centi_xp,
        });
    }
    for (skill, level) in level_ups {
        gas.record_game(CombatRecord::LevelUp {
            entity: attacker,
            skill,
            level,
        });
        if skill == Skill::Hitpoints {
            sync_max_health(runtime, world, gas, attacker);
        }
    }
}

/// Writes `MaxHealth`'s base from the entity's Hitpoints level (buffs keep
/// layering on top).
pub fn sync_max_health(runtime: &CombatRuntime, world: &mut World, gas: &mut Gas, entity: Entity) {
    let Some(level) = world
        .get::<&Combatant>(entity)
        .ok()
        .map(|c| c.skills.level(Skill::Hitpoints))
    else {
        return;
    };
    let max = max_health_for_level(&runtime.defs().settings, level);
    // MaxHealth follows the level, never a derived rule: this cannot be refused.
    let _ = gas.set_base_attribute(world, entity, runtime.max_health, max);
}

#[cfg(test)]
mod tests {
    use rand_chacha::rand_core::{Rng, SeedableRng};

    use super::centi;

    /// The XP's hundredths are what `f64::round` gives, clamped at zero:
    /// for damage times any rate, negative values, NaN and the
    /// infinities.
    #[test]
    fn hundredths_round_as_the_library_does() {
        let library = |value: f64| (value * 100.0).round().max(0.0) as u64;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut values = vec![
            0.0,
            -0.0,
            0.005,
            0.015,
            -0.004,
            -0.006,
            -3.5,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for _ in 0..100_000 {
            let damage = (rng.next_u64() % 1_000) as f64;
            let rate = (rng.next_u64() % 10_000) as f64 / 1_000.0;
            values.extend([
                damage * rate,
                -damage * rate,
                f64::from_bits(rng.next_u64()),
            ]);
        }
        for value in values {
            assert_eq!(centi(value), library(value), "{value:e}");
        }
    }
}
