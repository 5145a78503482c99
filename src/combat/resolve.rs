//! Resolving one attack: stamp the shared attack cooldown, roll accuracy
//! and damage through [`math`], apply the damage effect.
//! Every attack path (swing, weave, autocast, manual cast) comes through
//! here.

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::defs::{DamageType, SpellDef, SpellId, Style};
use super::math;
use super::native;
use super::record::{AttackOutcome, CombatRecord, COMBAT};
use super::runtime::CombatRuntime;
use super::stats::{active_style, snapshot, AttackSource, SwingStats};
use crate::abilities::{AbilitySystem, GameplayEvent};
use crate::effects::EffectSpec;
use crate::gas::Gas;
use crate::tags::TagSet;
use crate::time::{SimDuration, SimTime};
use crate::trace::{BlockReason, TraceCategory};

/// Which attack is being resolved.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Attack {
    /// A weapon swing with this damage type, stamping this interval.
    Swing {
        /// The damage type swung.
        damage_type: DamageType,
        /// `SwingInterval / AttackSpeed`.
        interval: SimDuration,
        /// The weapon fires ammunition.
        uses_ammo: bool,
    },
    /// A spell cast: weaved, autocast or manual.
    Cast {
        /// The spell.
        spell: SpellId,
        /// True when it came from the weave queue.
        weaved: bool,
    },
}

/// The accuracy and damage an attack rolls with.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AttackRolls {
    /// Chance to hit, `[0, 1]`.
    pub hit_chance: f64,
    /// Least damage of a hit.
    pub min_hit: u32,
    /// Most damage of a hit.
    pub max_hit: u32,
}

impl AttackRolls {
    /// Expected damage per attack: hit chance × mean hit.
    pub fn expected_damage(&self) -> f64 {
        self.hit_chance * (f64::from(self.min_hit) + f64::from(self.max_hit)) / 2.0
    }
}

/// `(weapon skill, defense)` invisible levels a style adds.
pub fn style_bonus(style: Style) -> (u32, u32) {
    match style {
        Style::Aggressive => (3, 0),
        Style::Defensive => (0, 3),
        Style::Controlled => (1, 1),
    }
}

/// The rolls `attacker` makes against `target` with `damage_type` in
/// `style` (and `spell` for magic), the defender in its style at `now`.
/// `None` if either is not a combatant.
#[allow(clippy::too_many_arguments)]
pub fn attack_rolls(
    runtime: &CombatRuntime,
    world: &World,
    now: SimTime,
    attacker: Entity,
    target: Entity,
    damage_type: DamageType,
    style: Style,
    spell: Option<&SpellDef>,
) -> Option<AttackRolls> {
    let offence = {
        let a = world.get::<&Combatant>(attacker).ok()?;
        Offence::of(runtime, &a, damage_type, style, spell)
    };
    let defence = {
        let d = world.get::<&Combatant>(target).ok()?;
        let d_style = world
            .get::<&AbilitySystem>(target)
            .map_or(Style::Aggressive, |s| active_style(runtime, &s, now));
        defence_roll(runtime, &d, d_style, damage_type)
    };
    Some(offence.against(defence))
}

/// The attacker's half of the rolls: its attack roll and hit range.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Offence {
    attack: i64,
    min_hit: u32,
    max_hit: u32,
}

impl Offence {
    /// The attacker's half of the rolls of the attack `stats` snapshots
    /// (its weapon's swing, or its autocast spell), from `a` as it stands.
    pub(crate) fn of_snapshot(runtime: &CombatRuntime, a: &Combatant, stats: &SwingStats) -> Self {
        let spell = snapshot_spell(runtime, stats);
        Self::of(runtime, a, stats.damage_type, stats.style, spell)
    }

    fn of(
        runtime: &CombatRuntime,
        a: &Combatant,
        damage_type: DamageType,
        style: Style,
        spell: Option<&SpellDef>,
    ) -> Self {
        let defs = runtime.defs();
        let skill = damage_type.skill();
        // Attack and strength both come from the one weapon skill.
        let effective = math::effective_level(a.skills.level(skill), style_bonus(style).0);
        let attack = math::attack_roll(effective, a.equipment.attack_bonus(defs, damage_type));
        let (max_hit, min_hit) = match (damage_type, spell) {
            (DamageType::Magic, Some(spell)) => {
                let max = math::spell_max_hit(spell.max_damage, a.equipment.magic_damage(defs));
                (max, spell.base_damage.min(max))
            }
            (DamageType::Ranged, _) => (
                math::max_hit(effective, a.equipment.ranged_strength(defs)),
                0,
            ),
            _ => (math::max_hit(effective, a.equipment.strength(defs)), 0),
        };
        Self {
            attack,
            min_hit,
            max_hit,
        }
    }

    fn against(self, defence: i64) -> AttackRolls {
        AttackRolls {
            hit_chance: math::hit_chance(self.attack, defence),
            min_hit: self.min_hit,
            max_hit: self.max_hit,
        }
    }
}

/// The defender's half: its defence roll against `damage_type` in its
/// active style.
fn defence_roll(
    runtime: &CombatRuntime,
    d: &Combatant,
    style: Style,
    damage_type: DamageType,
) -> i64 {
    let effective = math::effective_level(
        d.skills.level(super::defs::Skill::Defense),
        style_bonus(style).1,
    );
    math::defense_roll(
        effective,
        d.equipment.defense_bonus(runtime.defs(), damage_type),
    )
}

/// What an attacker's current attack promises against a target: its rolls
/// and how often it comes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Expectation {
    /// Hit chance and hit range against that target.
    pub rolls: AttackRolls,
    /// Time between attacks (`SwingInterval / AttackSpeed`, or the
    /// autocast spell's cast interval).
    pub interval: SimDuration,
}

impl Expectation {
    /// Expected damage per second, misses included.
    pub fn dps(&self) -> f64 {
        self.rolls.expected_damage() / self.interval.as_secs_f64()
    }
}

/// What `attacker`'s current attack (its weapon's swing or its autocast
/// spell, in its current style) promises against `target` at `now`.
/// `None` if either is not a combatant.
pub fn expectation(
    runtime: &CombatRuntime,
    world: &World,
    now: SimTime,
    attacker: Entity,
    target: Entity,
) -> Option<Expectation> {
    let stats = snapshot(runtime, world, attacker, now)?;
    let spell = snapshot_spell(runtime, &stats);
    let rolls = attack_rolls(
        runtime,
        world,
        now,
        attacker,
        target,
        stats.damage_type,
        stats.style,
        spell,
    )?;
    Some(Expectation {
        rolls,
        interval: stats.interval,
    })
}

/// The spell of the attack `stats` snapshots: its autocast spell, if any.
fn snapshot_spell<'a>(runtime: &'a CombatRuntime, stats: &SwingStats) -> Option<&'a SpellDef> {
    match stats.source {
        AttackSource::Autocast(spell) => runtime.defs().spell(spell),
        AttackSource::Weapon(_) => None,
    }
}

/// Stamps `Cooldown.Combat.Attack` on `attacker` for `interval`.
pub(crate) fn stamp_attack_cooldown(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    attacker: Entity,
    interval: SimDuration,
) {
    let spec = EffectSpec::with_value(
        runtime.attack_cooldown_effect,
        Some(attacker),
        TagSet::new(),
        (runtime.attack_cooldown, interval.as_secs_f64()),
    );
    gas.apply_effect_recorded(world, attacker, spec);
    gas.record_game_with(COMBAT, || CombatRecord::CooldownStamped {
        entity: attacker,
        cooldown: runtime.attack_cooldown,
        duration: interval,
    });
}

/// Resolves one attack of `attacker` on `target` from the engagement
/// loop: consumes ammunition or runes (refusing the attack, with nothing
/// stamped, when they are missing), stamps the attack cooldown, then rolls
/// and applies. `offence` is the attacker's half of the rolls when the
/// caller took it with the poll's snapshot (see [`roll_and_apply`]).
/// Returns the outcome, or the `Activation.Fail.*` reason the attack did
/// not happen.
pub(crate) fn resolve(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    (attacker, target): (Entity, Entity),
    attack: Attack,
    style: Style,
    offence: Option<Offence>,
) -> Result<AttackOutcome, crate::tags::Tag> {
    let tags = runtime.tags();
    let interval = match attack {
        Attack::Swing {
            interval,
            uses_ammo,
            ..
        } => {
            if uses_ammo && !super::consume::consume_ammo(runtime, world, gas, attacker) {
                return Err(tags[super::native::FAIL_NO_AMMO]);
            }
            interval
        }
        Attack::Cast { spell, .. } => {
            if !super::consume::consume_runes(runtime, world, gas, attacker, spell) {
                return Err(tags[super::native::FAIL_NO_RUNES]);
            }
            runtime
                .defs()
                .spell(spell)
                .map_or(SimDuration::ZERO, |s| s.cast_interval)
        }
    };
    stamp_attack_cooldown(runtime, world, gas, attacker, interval);
    Ok(roll_and_apply(
        runtime,
        world,
        gas,
        (attacker, target),
        attack,
        style,
        offence,
    ))
}

/// Rolls accuracy and damage, records the attack and its cue, and applies
/// the damage effect on a hit. The cooldown is already stamped.
///
/// `offence` is the attacker's half of the rolls as the engagement loop's
/// poll snapshotted it, with the attack's other stats (the contract reads
/// every bonus of a swing from the snapshot taken at its start); `None`
/// reads it from the attacker now (a weave, a manual cast).
pub(crate) fn roll_and_apply(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    (attacker, target): (Entity, Entity),
    attack: Attack,
    style: Style,
    offence: Option<Offence>,
) -> AttackOutcome {
    runtime.count_attack();
    let defs = runtime.defs();
    let (damage_type, spell, weaved) = match attack {
        Attack::Swing { damage_type, .. } => (damage_type, None, false),
        Attack::Cast { spell, weaved } => (DamageType::Magic, Some(spell), weaved),
    };
    let spell_def = spell.and_then(|s| defs.spell(s));
    let tags = runtime.tags();
    // One look at each side: the attacker's half of the rolls (unless the
    // poll's snapshot holds it), then the defender's half and whether it
    // would refuse the damage (immune, dead), which nothing below changes
    // before the damage applies.
    let offence = offence.or_else(|| {
        world
            .query_one_mut::<&Combatant>(attacker)
            .ok()
            .map(|a| Offence::of(runtime, a, damage_type, style, spell_def))
    });
    let damage_tags = runtime.damage_tags(damage_type, style, spell);
    let effects = gas.catalog().effects();
    let now = gas.now();
    let defence = world
        .query_one_mut::<(&Combatant, Option<&AbilitySystem>)>(target)
        .ok()
        .map(|(d, system)| {
            let d_style = system.map_or(Style::Aggressive, |s| active_style(runtime, s, now));
            let refusal = system.map_or(Some(BlockReason::Requirements), |s| {
                s.host.refusal_at(
                    now,
                    effects,
                    effects.def(runtime.damage_effect),
                    damage_tags,
                )
            });
            (defence_roll(runtime, d, d_style, damage_type), refusal)
        });
    let rolls = offence
        .zip(defence)
        .map(|(offence, (defence, _))| offence.against(defence));
    let rolled = match rolls {
        Some(rolls) if math::roll_hit(gas.rng(), rolls.hit_chance) => {
            AttackOutcome::Hit(math::roll_between(gas.rng(), rolls.min_hit, rolls.max_hit))
        }
        _ => AttackOutcome::Miss,
    };
    let cue = spell_def.map_or_else(|| damage_type.hit_cue(tags), |s| s.hit_cue);
    // A hit the target would refuse (immune, dead) is recorded as such.
    let refusal = defence.map_or(Some(BlockReason::Requirements), |(_, refused)| refused);
    let outcome = match (rolled, refusal) {
        (AttackOutcome::Hit(amount), Some(reason)) => AttackOutcome::Blocked(amount, reason),
        _ => rolled,
    };
    gas.record_game_with(COMBAT, || CombatRecord::Attack {
        attacker,
        target,
        outcome,
        damage_type,
        weaved,
        spell,
    });
    match outcome {
        AttackOutcome::Hit(amount @ 1..) => {
            let spec = EffectSpec::with_value(
                runtime.damage_effect,
                Some(attacker),
                damage_tags.clone(),
                (damage_type.tag(tags), f64::from(amount)),
            );
            gas.apply_effect_recorded(world, target, spec);
        }
        // A miss or a hit for zero applies nothing (no XP, no in-combat
        // refresh): its cue fires here, a miss flagged as one. The flags
        // are built only when the trace records cues or someone observes
        // them.
        AttackOutcome::Hit(_) | AttackOutcome::Miss if gas.traces(TraceCategory::CUES) => {
            let mut flags = TagSet::new();
            if outcome == AttackOutcome::Miss {
                flags.insert(tags[native::COMBAT_EVENT_MISS]);
            }
            gas.fire_cue(target, Some(attacker), cue, 0.0, &flags);
        }
        AttackOutcome::Hit(_) | AttackOutcome::Miss | AttackOutcome::Blocked(..) => {}
    }
    // Other abilities react to the outcome (an on-hit proc): the attacker
    // hears of it at once, with the target (a reaction to being struck reads
    // the target's Health instead: an attribute observer or an effect hook).
    let heard = match outcome {
        AttackOutcome::Hit(amount) => Some((native::COMBAT_EVENT_HIT, f64::from(amount))),
        AttackOutcome::Miss => Some((native::COMBAT_EVENT_MISS, 0.0)),
        AttackOutcome::Blocked(..) => None,
    };
    if let Some((event, amount)) = heard {
        let event = GameplayEvent::new(tags[event])
            .target(target)
            .instigator(attacker)
            .magnitude(amount);
        gas.handle_event(world, attacker, event);
    }
    outcome
}
