//! [`SwingStats`]: the effective stats of the next attack, snapshotted at
//! the top of every poll so equipment, style and buffs changed between
//! swings apply to the next one, and so the range check compares against
//! the right weapon's range.

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::defs::{DamageType, ItemId, SpellId, Style};
use super::native;
use super::range::{resolve_engagement_range, resolve_spell_range};
use super::runtime::CombatRuntime;
use crate::abilities::AbilitySystem;
use crate::time::{SimDuration, SimTime};

/// What the next attack is.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum AttackSource {
    /// A weapon swing (bare hands when `None`).
    Weapon(Option<ItemId>),
    /// The autocast spell.
    Autocast(SpellId),
}

/// The snapshot of one attack's effective stats.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SwingStats {
    /// Weapon or autocast spell.
    pub source: AttackSource,
    /// The damage type it deals (resolved through the weapon's style table).
    pub damage_type: DamageType,
    /// The style it was taken in.
    pub style: Style,
    /// Engagement range in cm, from the one resolver.
    pub range_cm: f64,
    /// The attack cooldown it stamps: `SwingInterval / AttackSpeed` for
    /// swings, the spell's `CastInterval` for casts (never sped up).
    pub interval: SimDuration,
    /// The weapon fires ammunition.
    pub uses_ammo: bool,
    /// What `SwingInterval / AttackSpeed` computed to, when it fell below
    /// the settings' `min_attack_interval` and `interval` was raised to it.
    pub clamped_from: Option<SimDuration>,
}

impl SwingStats {
    /// The damage channel the swing attacks on: magic for an autocast
    /// spell, else the weapon's damage type.
    pub fn channel(&self) -> DamageType {
        match self.source {
            AttackSource::Autocast(_) => DamageType::Magic,
            AttackSource::Weapon(_) => self.damage_type,
        }
    }
}

/// The active style at `now`: Defensive, then Controlled, then the
/// Aggressive default.
pub fn active_style(runtime: &CombatRuntime, system: &AbilitySystem, now: SimTime) -> Style {
    let tags = runtime.tags();
    let effects = runtime.catalog.effects();
    // Most fighters keep the default and own no style tag at all, which
    // one parent-aware read settles (both sides of every swing ask).
    if !system.has_tag(effects, now, tags[native::COMBAT_STYLE]) {
        return Style::Aggressive;
    }
    [Style::Defensive, Style::Controlled]
        .into_iter()
        .find(|s| system.has_exact_tag(effects, now, s.tag(tags)))
        .unwrap_or(Style::Aggressive)
}

/// Snapshots `entity`'s next attack as it stands at `now`; `None`
/// without a combatant.
pub fn snapshot(
    runtime: &CombatRuntime,
    world: &World,
    entity: Entity,
    now: SimTime,
) -> Option<SwingStats> {
    let combatant = world.get::<&Combatant>(entity).ok()?;
    let system = world.get::<&AbilitySystem>(entity).ok()?;
    Some(snapshot_of(runtime, &combatant, &system, now))
}

/// [`snapshot`] of components the caller already holds.
pub fn snapshot_of(
    runtime: &CombatRuntime,
    combatant: &Combatant,
    system: &AbilitySystem,
    now: SimTime,
) -> SwingStats {
    let combat = runtime.defs();
    let settings = &combat.settings;
    let style = active_style(runtime, system, now);
    if let Some(spell_id) = combatant.spellbook.autocast {
        if let Some(spell) = combat.spell(spell_id) {
            return SwingStats {
                source: AttackSource::Autocast(spell_id),
                damage_type: DamageType::Magic,
                style,
                range_cm: resolve_spell_range(settings, spell),
                interval: spell.cast_interval,
                uses_ammo: false,
                clamped_from: None,
            };
        }
    }
    let weapon = combatant.equipment.weapon(combat, runtime.weapon_slot);
    let (item, damage_type, base_interval) = match weapon {
        Some((item, w)) => (Some(item), w.damage_type_for(style), w.swing_interval),
        None => (
            None,
            settings.unarmed_damage_type,
            settings.unarmed_swing_interval,
        ),
    };
    let attack_speed = system.current(runtime.attack_speed);
    let computed = SimDuration::from_secs_f64(base_interval.as_secs_f64() / attack_speed)
        .unwrap_or(base_interval);
    let interval = computed.max(settings.min_attack_interval);
    SwingStats {
        source: AttackSource::Weapon(item),
        damage_type,
        style,
        range_cm: resolve_engagement_range(settings, weapon.map(|(_, w)| w), damage_type),
        interval,
        uses_ammo: weapon.is_some_and(|(_, w)| w.uses_ammo),
        clamped_from: (interval != computed).then_some(computed),
    }
}
