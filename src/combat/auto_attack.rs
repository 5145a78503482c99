//! The engagement loop: auto-attack as one long-running ability.
//!
//! Each poll snapshots the effective stats first (with them, the attacker's
//! half of the rolls: levels and bonuses as they stand before the attack
//! spends its arrow or runes), then checks range through the one resolver.
//! Out of range, the loop chases and re-polls every `ChasePollInterval`.
//! In range, it reads the remaining time of `Cooldown.Combat.Attack` *as a
//! level*: at or below epsilon it resolves an attack (the queued weave if
//! any, else a swing or the autocast spell) and waits exactly the interval
//! it stamped; otherwise it waits exactly the remaining time. It never waits on the tag's removal and never blindly
//! re-waits a full interval, so no tick is lost and none lands free.
//!
//! The range gate is that of what fires next: a queued weave when the
//! target is within its spell's range, else the snapshot's attack. A weave
//! whose target is beyond its spell's range stays queued (`WeaveHeld`) and
//! the tick's own attack goes instead; the loop never chases for a cast
//! (the contract has no walk-then-cast) and never casts beyond range, and
//! since it only ever chases toward the weapon's range it cannot ping-pong.
//! A weave that cannot go (no runes, say) lets the attack go in its place,
//! range-checked then: a target within the spell's range but beyond the
//! weapon's is chased, not hit from afar.
//!
//! Every end path (target dead or gone, sight lost, a cancel tag, owner
//! death, disengage, a move order, explicit cancel) runs one teardown: end
//! the chase, drop the weave, leave the target's attacker set, clear the
//! target.
//!
//! Why the first attack resolves at activation: see the crate's combat
//! module docs, *The first swing*.

use std::sync::Arc;

use hecs::{Entity, World};

use super::cast::{cast_gates, spell_in_range};
use super::combatant::Combatant;
use super::native;
use super::pursuit::{chase_step, end_chase};
use super::record::CombatRecord;
use super::resolve::{resolve, Attack, Offence};
use super::runtime::CombatRuntime;
use super::stats::{snapshot_of, AttackSource, SwingStats};
use crate::abilities::AbilitySystem;
use crate::abilities::{AbilityBehaviour, AbilityCx, Activation, EndReason, WakeReason};
use crate::gas::Gas;
use crate::tags::Tag;
use crate::time::{SimDuration, SimTime};

/// The auto-attack behaviour (`behaviour: Registered("AutoAttack")`).
pub struct AutoAttack(pub Arc<CombatRuntime>);

/// What came of a tick's attack.
enum Next {
    /// An attack resolved and stamped the attack cooldown for this long.
    Stamped(SimDuration),
    /// The weave did not go and the target is beyond the attack's range.
    OutOfRange,
    /// The attack could not happen and the engagement ended.
    Ended,
}

impl AbilityBehaviour for AutoAttack {
    fn can_activate(
        &self,
        world: &World,
        gas: &Gas,
        activation: &Activation<'_>,
    ) -> Result<(), Tag> {
        let runtime = &self.0;
        let tags = runtime.tags();
        let target = runtime.attack_target(world, activation)?;
        if world.get::<&Combatant>(activation.owner).is_err() {
            return Err(tags[native::FAIL_INVALID_PAYLOAD]);
        }
        // Engaging the target already engaged changes nothing: the loop,
        // its cadence and its queued weave go on. (A retrigger would
        // restart the loop and drop the weave, which only a disengage or
        // the target's death may.) Another target retriggers: a switch.
        if runtime.engaged_on(world, gas.now(), activation.owner, target) {
            return Err(tags[native::FAIL_ALREADY_ACTIVE]);
        }
        // From within reach only: from further away, the walk-up
        // (QueuedInteract) brings the attacker here first.
        runtime.can_engage(world, gas, activation.owner, target)
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let Some(target) = cx.event.target else {
            cx.end();
            return;
        };
        {
            let Ok(mut defender) = cx.world.get::<&mut Combatant>(target) else {
                cx.end_with(EndReason::TargetLost);
                return;
            };
            defender.attackers.prune(cx.world);
            if !defender.attackers.current.contains(&cx.owner) {
                defender.attackers.current.push(cx.owner);
            }
        }
        cx.gas.record_game(CombatRecord::Engaged {
            attacker: cx.owner,
            target,
        });
        self.poll(cx, target);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _reason: WakeReason) {
        if let Some(target) = cx.event.target {
            self.poll(cx, target);
        }
    }

    fn end(&self, cx: &mut AbilityCx<'_>, _reason: EndReason) {
        teardown(&self.0, cx.world, cx.gas, cx.owner);
    }
}

impl AutoAttack {
    fn poll(&self, cx: &mut AbilityCx<'_>, target: Entity) {
        let runtime = &*self.0;
        let now = cx.gas.now();
        if !runtime.is_alive_exclusive(cx.world, target, now) {
            let dead = runtime.tags()[native::FAIL_TARGET_DEAD];
            cx.end_with(EndReason::Behaviour(dead));
            return;
        }
        // Stats first: the range compared below is this weapon's (or
        // spell's). One look at the owner's components for the stats, the
        // target, the kind, the weave queue, sight and the attack
        // cooldown's remaining time.
        let effects = cx.gas.catalog().effects();
        let looked = cx
            .world
            .query_one_mut::<(&mut Combatant, &AbilitySystem)>(cx.owner)
            .ok()
            .map(|(c, system)| {
                let stats = snapshot_of(runtime, c, system, now);
                let changed = c.targeting.aim(Some(target), Some(stats));
                let cooldown = system
                    .host
                    .time_remaining(effects, now, runtime.attack_cooldown)
                    .map_or(SimDuration::ZERO, |(remaining, _)| remaining);
                let targeting = &c.targeting;
                let (weave, sight_lost) = (targeting.pending_weave, targeting.sight_lost_since);
                // A chase runs exactly while `State.Chasing` is owned (the
                // pursuit keeps it so, an invariant), so the owned tags say
                // whether there is one to end.
                let chasing =
                    system.has_exact_tag(effects, now, runtime.tags()[native::STATE_CHASING]);
                // The attacker's half of the rolls belongs to the snapshot
                // too, taken here while the combatant is at hand, for any
                // poll that may attack: one whose cooldown is up, or one
                // whose ending chase makes it read the cooldown again.
                let ready = runtime.defs().settings.is_ready(cooldown);
                let offence = (ready || chasing).then(|| Offence::of_snapshot(runtime, c, &stats));
                let read = (stats, c.kind, changed, weave, sight_lost, offence);
                (read, cooldown, chasing)
            });
        let Some(((stats, kind, changed, weave, sight_lost, offence), cooldown, chasing)) = looked
        else {
            cx.end();
            return;
        };
        if changed {
            record_target_changed(cx.gas, cx.owner, Some(target), Some(stats));
        }
        if let Some(computed) = stats.clamped_from {
            cx.gas.record_game(CombatRecord::IntervalClamped {
                entity: cx.owner,
                computed,
                used: stats.interval,
            });
        }
        let kind = runtime.defs().kind(kind);
        if !self.sight_ok(cx, target, kind, sight_lost) {
            return;
        }
        // The range gate is that of what fires next: the queued weave when
        // the target is within its spell's range, else the snapshot's
        // attack. A weave beyond its spell's range never draws a chase
        // (there is no walk-up for a cast): it waits for a later tick.
        let weave_ready = weave
            .and_then(|spell| runtime.defs().spell(spell))
            .is_some_and(|spell| spell_in_range(runtime, cx.world, now, (cx.owner, target), spell));
        if !weave_ready
            && !runtime.in_range_exclusive(cx.world, cx.owner, target, stats.range_cm, now)
        {
            chase_step(runtime, cx.world, cx.gas, cx.owner, target);
            cx.wait_delay(kind.chase_poll_interval);
            return;
        }
        // Ending a chase changes a tag, which a rule may react to; only
        // then can the cooldown and weave queue read above be stale.
        let chase_ended = chasing && end_chase(runtime, cx.world, cx.gas, cx.owner, Some(target));
        let remaining = if chase_ended {
            cx.gas
                .time_remaining(cx.world, cx.owner, runtime.attack_cooldown)
        } else {
            cooldown
        };
        if !runtime.defs().settings.is_ready(remaining) {
            cx.wait_delay(remaining);
            return;
        }
        let may_weave = weave.is_some() || chase_ended;
        let weapon_gated = !weave_ready;
        match self.resolve_next(cx, target, (&stats, offence), may_weave, weapon_gated) {
            // The attack may have ended the engagement (a death, a
            // reaction); waiting is then a no-op.
            Next::Stamped(interval) => cx.wait_delay(interval),
            Next::OutOfRange => {
                chase_step(runtime, cx.world, cx.gas, cx.owner, target);
                cx.wait_delay(kind.chase_poll_interval);
            }
            Next::Ended => {}
        }
    }

    /// Resolves the weave if one is queued, else the snapshot's attack
    /// (with the snapshot's half of its rolls, `offence`, when the poll
    /// took it). A weave whose target is beyond its spell's range stays
    /// queued and this tick's attack goes instead; a weave failing any
    /// other gate (runes, spellbook, level) is dropped and the attack goes
    /// ahead. `may_weave` is false when the caller knows the queue is
    /// empty (no look at it then). `weapon_gated` is false when the poll
    /// let the weave's range stand for the attack's: an attack that goes
    /// instead of the weave is then range-checked here, as the swing gate
    /// requires, and a target beyond it means a chase, not a hit.
    fn resolve_next(
        &self,
        cx: &mut AbilityCx<'_>,
        target: Entity,
        (stats, offence): (&SwingStats, Option<Offence>),
        may_weave: bool,
        weapon_gated: bool,
    ) -> Next {
        let runtime = &self.0;
        let defs = runtime.defs();
        let weave = if may_weave {
            cx.world
                .query_one_mut::<&mut Combatant>(cx.owner)
                .ok()
                .and_then(|c| c.targeting.pending_weave.take())
        } else {
            None
        };
        if let Some(spell) = weave {
            // Every gate of the manual cast, again: the spellbook, the
            // level or the range may have changed since it was queued.
            let now = cx.gas.now();
            let gates = cast_gates(
                runtime,
                cx.world,
                now,
                (cx.owner, target),
                Some(spell.index() as u32),
            );
            let attack = Attack::Cast {
                spell,
                weaved: true,
            };
            let resolved = gates.and_then(|_| {
                resolve(
                    runtime,
                    cx.world,
                    cx.gas,
                    (cx.owner, target),
                    attack,
                    stats.style,
                    None,
                )
            });
            match resolved {
                Ok(_) => {
                    return defs
                        .spell(spell)
                        .map_or(Next::Ended, |s| Next::Stamped(s.cast_interval))
                }
                Err(reason) if reason == runtime.tags()[native::FAIL_OUT_OF_RANGE] => {
                    if let Ok(c) = cx.world.query_one_mut::<&mut Combatant>(cx.owner) {
                        c.targeting.pending_weave = Some(spell);
                    }
                    cx.gas.record_game(CombatRecord::WeaveHeld {
                        entity: cx.owner,
                        target,
                        spell,
                    });
                }
                Err(reason) => record_failure(cx.gas, cx.owner, target, reason),
            }
            let now = cx.gas.now();
            if !weapon_gated
                && !runtime.in_range_exclusive(cx.world, cx.owner, target, stats.range_cm, now)
            {
                return Next::OutOfRange;
            }
        }
        // The snapshot's interval is what either kind of attack stamps.
        let attack = match stats.source {
            AttackSource::Autocast(spell) => Attack::Cast {
                spell,
                weaved: false,
            },
            AttackSource::Weapon(_) => Attack::Swing {
                damage_type: stats.damage_type,
                interval: stats.interval,
                uses_ammo: stats.uses_ammo,
            },
        };
        match resolve(
            runtime,
            cx.world,
            cx.gas,
            (cx.owner, target),
            attack,
            stats.style,
            offence,
        ) {
            Ok(_) => Next::Stamped(stats.interval),
            Err(reason) => {
                record_failure(cx.gas, cx.owner, target, reason);
                cx.end_with(EndReason::Behaviour(reason));
                Next::Ended
            }
        }
    }

    /// Tracks line of sight; ends the engagement once it has been lost
    /// longer than the kind's tolerance. `false` when this poll must stop.
    /// `lost_since` is when sight was lost as the poll read it (`None`
    /// while in sight), so the common case, still in sight, writes nothing.
    fn sight_ok(
        &self,
        cx: &mut AbilityCx<'_>,
        target: Entity,
        kind: &super::defs::CombatKind,
        lost_since: Option<SimTime>,
    ) -> bool {
        let runtime = &self.0;
        let now = cx.gas.now();
        let visible = runtime
            .line_of_sight
            .visible(cx.world, cx.owner, target, now);
        if visible && lost_since.is_none() {
            return true;
        }
        let since = {
            let Ok(c) = cx.world.query_one_mut::<&mut Combatant>(cx.owner) else {
                return false;
            };
            if visible {
                c.targeting.sight_lost_since = None;
                return true;
            }
            *c.targeting.sight_lost_since.get_or_insert(now)
        };
        if now.saturating_since(since) > kind.line_of_sight_tolerance {
            let lost = runtime.tags()[native::FAIL_OUT_OF_RANGE];
            cx.end_with(EndReason::Behaviour(lost));
        } else {
            // Within the tolerance the pursuit goes on (the chase never
            // gives up before an end condition): the walk to where the
            // target stands is what may bring it back in sight. The poll
            // that sees it again ends the chase within reach, as any does.
            chase_step(runtime, cx.world, cx.gas, cx.owner, target);
            cx.wait_delay(kind.chase_poll_interval);
        }
        false
    }
}

fn record_failure(gas: &mut Gas, attacker: Entity, target: Entity, reason: Tag) {
    gas.record_game(CombatRecord::AttackFailed {
        attacker,
        target,
        reason,
    });
}

/// Sets the active target and attack channel together, recording a change.
pub(crate) fn set_target(
    world: &mut World,
    gas: &mut Gas,
    owner: Entity,
    target: Option<Entity>,
    stats: Option<SwingStats>,
) {
    let Ok(c) = world.query_one_mut::<&mut Combatant>(owner) else {
        return;
    };
    if c.targeting.aim(target, stats) {
        record_target_changed(gas, owner, target, stats);
    }
}

/// Records a change of target or damage channel.
fn record_target_changed(
    gas: &mut Gas,
    owner: Entity,
    target: Option<Entity>,
    stats: Option<SwingStats>,
) {
    gas.record_game(CombatRecord::TargetChanged {
        entity: owner,
        target,
        channel: stats.map(|s| s.channel()),
    });
}

/// The one teardown every end path runs: end the chase, drop the weave,
/// leave the target's attacker set, clear the target.
pub(crate) fn teardown(runtime: &CombatRuntime, world: &mut World, gas: &mut Gas, owner: Entity) {
    let target = world
        .get::<&Combatant>(owner)
        .ok()
        .and_then(|c| c.targeting.target);
    end_chase(runtime, world, gas, owner, target);
    let dropped = world
        .query_one_mut::<&mut Combatant>(owner)
        .ok()
        .and_then(|c| c.targeting.pending_weave.take());
    if let Some(spell) = dropped {
        gas.record_game(CombatRecord::WeaveDropped {
            entity: owner,
            spell,
        });
    }
    if let Some(target) = target {
        if let Ok(defender) = world.query_one_mut::<&mut Combatant>(target) {
            defender.attackers.current.retain(|&mut e| e != owner);
        }
    }
    if let Ok(c) = world.query_one_mut::<&mut Combatant>(owner) {
        c.targeting.sight_lost_since = None;
    }
    set_target(world, gas, owner, None, None);
}
