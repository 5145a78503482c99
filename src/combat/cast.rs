//! `Action.Trigger.Combat.Cast` has two consumers, routed by the owner's
//! state (`trigger_when` in data):
//!
//! - while engaged, [`QueueWeave`] puts the spell in the one-deep weave
//!   queue (last click wins, same target only) and returns: the engagement
//!   loop is the only executor, so a weave costs exactly one tick;
//! - otherwise [`CastSpell`] casts standalone, gated by
//!   `Cooldown.Combat.Attack` through the normal cooldown check, and stamps
//!   it for the spell's cast interval, so an engage right after does not
//!   swing early.

use std::sync::Arc;

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::defs::{SpellDef, SpellId};
use super::native;
use super::range::resolve_spell_range;
use super::record::CombatRecord;
use super::resolve::Attack;
use super::runtime::CombatRuntime;
use super::stats::active_style;
use crate::abilities::{AbilityBehaviour, AbilityCx, AbilitySystem, Activation, EndReason};
use crate::gas::Gas;
use crate::tags::Tag;
use crate::time::SimTime;

/// The spell an event names (its object id), validated against the caster.
pub(crate) fn validate_spell(
    runtime: &CombatRuntime,
    world: &World,
    caster: Entity,
    raw: Option<u32>,
) -> Result<SpellId, Tag> {
    let tags = runtime.tags();
    let defs = runtime.defs();
    let spell_id = raw
        .and_then(|r| defs.spell_from_raw(r))
        .ok_or(tags[native::FAIL_INVALID_PAYLOAD])?;
    let combatant = world
        .get::<&Combatant>(caster)
        .map_err(|_| tags[native::FAIL_INVALID_PAYLOAD])?;
    // The same gate as the autocast's: the spell exists, is learned and is
    // within the caster's Magic level.
    super::spellbook::check_autocast(runtime, &combatant, Some(spell_id))?;
    Ok(spell_id)
}

/// Every read-only gate of a cast of spell `raw` by `caster` at `target`:
/// target alive, spell learned, level, in range ("Out of range.", no
/// walk-up), runes. The manual cast checks them before commit; a queued
/// weave checks them again when it resolves (the spellbook may have
/// changed since it was queued).
pub(crate) fn cast_gates(
    runtime: &CombatRuntime,
    world: &World,
    now: SimTime,
    (caster, target): (Entity, Entity),
    raw: Option<u32>,
) -> Result<SpellId, Tag> {
    let tags = runtime.tags();
    if !runtime.is_alive(world, target, now) {
        return Err(tags[native::FAIL_TARGET_DEAD]);
    }
    let spell_id = validate_spell(runtime, world, caster, raw)?;
    let spell = runtime
        .defs()
        .spell(spell_id)
        .ok_or(tags[native::FAIL_INVALID_PAYLOAD])?;
    if !spell_in_range(runtime, world, now, (caster, target), spell) {
        return Err(tags[native::FAIL_OUT_OF_RANGE]);
    }
    super::consume::check_runes(runtime, world, caster, spell)?;
    Ok(spell_id)
}

/// Is `target` within `spell`'s range of `caster` (through the one spell
/// range resolver)?
pub(crate) fn spell_in_range(
    runtime: &CombatRuntime,
    world: &World,
    now: SimTime,
    (caster, target): (Entity, Entity),
    spell: &SpellDef,
) -> bool {
    let range = resolve_spell_range(&runtime.defs().settings, spell);
    runtime.in_range(world, caster, target, range, now)
}

/// The standalone manual cast (`behaviour: Registered("CastSpell")`).
pub struct CastSpell(pub Arc<CombatRuntime>);

impl AbilityBehaviour for CastSpell {
    /// Every read-only gate before commit: target alive, spell learned,
    /// level, in range ("Out of range.", no walk-up), runes.
    fn can_activate(
        &self,
        world: &World,
        gas: &Gas,
        activation: &Activation<'_>,
    ) -> Result<(), Tag> {
        let runtime = &self.0;
        let target = runtime.attack_target(world, activation)?;
        let spell = activation.event.object;
        cast_gates(runtime, world, gas.now(), (activation.owner, target), spell).map(|_| ())
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let runtime = &self.0;
        let (Some(target), Some(spell)) = (
            cx.event.target,
            cx.event
                .object
                .and_then(|r| runtime.defs().spell_from_raw(r)),
        ) else {
            cx.end();
            return;
        };
        let Some(interval) = runtime.defs().spell(spell).map(|s| s.cast_interval) else {
            cx.end();
            return;
        };
        // The ability's cooldown is the attack cooldown: commit stamps it for
        // this spell's cast interval.
        if let Err(reason) = cx.commit_with_cooldown(interval.as_secs_f64()) {
            let tag = reason.tag(runtime.catalog.tags());
            cx.end_with(EndReason::Behaviour(tag));
            return;
        }
        cx.gas.record_game(CombatRecord::CooldownStamped {
            entity: cx.owner,
            cooldown: runtime.attack_cooldown,
            duration: interval,
        });
        let style = cx
            .world
            .get::<&AbilitySystem>(cx.owner)
            .map_or(super::defs::Style::Aggressive, |s| {
                active_style(runtime, &s, cx.gas.now())
            });
        if super::consume::consume_runes(runtime, cx.world, cx.gas, cx.owner, spell) {
            super::resolve::roll_and_apply(
                runtime,
                cx.world,
                cx.gas,
                (cx.owner, target),
                Attack::Cast {
                    spell,
                    weaved: false,
                },
                style,
                None,
            );
        }
        cx.end();
    }
}

/// The weave queue (`behaviour: Registered("QueueWeave")`), triggered by a
/// cast while engaged.
pub struct QueueWeave(pub Arc<CombatRuntime>);

impl AbilityBehaviour for QueueWeave {
    fn can_activate(
        &self,
        world: &World,
        gas: &Gas,
        activation: &Activation<'_>,
    ) -> Result<(), Tag> {
        let runtime = &self.0;
        let tags = runtime.tags();
        let engaged_on = world
            .get::<&Combatant>(activation.owner)
            .ok()
            .and_then(|c| c.targeting.target);
        let target = activation
            .event
            .target
            .ok_or(tags[native::FAIL_NO_TARGET])?;
        if engaged_on != Some(target) {
            return Err(tags[native::FAIL_WRONG_TARGET]);
        }
        if !runtime.is_alive(world, target, gas.now()) {
            return Err(tags[native::FAIL_TARGET_DEAD]);
        }
        validate_spell(runtime, world, activation.owner, activation.event.object).map(|_| ())
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let runtime = &self.0;
        let spell = cx
            .event
            .object
            .and_then(|r| runtime.defs().spell_from_raw(r));
        if let (Some(spell), Some(target)) = (spell, cx.event.target) {
            let replaced = cx
                .world
                .query_one_mut::<&mut Combatant>(cx.owner)
                .ok()
                .and_then(|c| c.targeting.pending_weave.replace(spell));
            cx.gas.record_game(CombatRecord::WeaveQueued {
                entity: cx.owner,
                target,
                spell,
                replaced,
            });
        }
        cx.end();
    }
}
