//! The walk-up channel and the move order that cancels it.
//!
//! A click on something out of reach is an `Action.Trigger.QueuedInteract`
//! event: its target is what was clicked, its payload the interaction to
//! perform there (`Action.Trigger.Combat.Engage` for an attack click). The
//! [`QueuedInteract`] ability walks up through the one chase primitive,
//! polling every `ChasePollInterval`, until the interaction is possible,
//! then halts the body (end the chase, stop the movement), sends the
//! payload to its owner as a gameplay event and ends. Cancelled instead
//! (a stun, a modal, the walker's death or its target's), it only ends
//! the chase and leaves the body coasting.
//! Combat enters an engagement only this way or from within reach: the
//! engage gate ([`CombatRuntime::can_engage`]) refuses a target out of
//! range or out of sight.
//!
//! A fresh move order ([`move_order`]) cancels the walk-up and the
//! engagement alike, then moves the body: the controller's cancel path.
//! Movement the game causes otherwise (a chase, a knock-back) cancels
//! nothing.

use std::sync::Arc;

use hecs::{Entity, World};

use super::native;
use super::pursuit::{chase_step, end_chase};
use super::runtime::CombatRuntime;
use super::stats::snapshot_of;
use super::vec2::Vec2;
use super::Combatant;
use crate::abilities::{
    AbilityBehaviour, AbilityCx, AbilitySystem, Activation, EndReason, GameplayEvent,
};
use crate::gas::Gas;
use crate::tags::{Tag, TagSet};

/// The walk-up (`behaviour: Registered("QueuedInteract")`).
///
/// The interaction is within reach when:
///
/// - for an engage, the attacker could engage now: the target within its
///   engagement range (the same resolver the swing gate uses) and in sight
///   ([`CombatRuntime::in_engagement_reach`]). The click already
///   refuses a dead target and one whose attacker ceiling is reached
///   (the ceiling's peek, so a full target is refused before the walk);
///   the engage checks both again on arrival;
/// - for any other interaction, the target is within melee range and in
///   sight (standing next to it).
pub struct QueuedInteract(pub Arc<CombatRuntime>);

impl AbilityBehaviour for QueuedInteract {
    fn can_activate(
        &self,
        world: &World,
        gas: &Gas,
        activation: &Activation<'_>,
    ) -> Result<(), Tag> {
        let runtime = &self.0;
        let tags = runtime.tags();
        let owner = activation.owner;
        if world.get::<&Combatant>(owner).is_err() || activation.event.payload.is_none() {
            return Err(tags[native::FAIL_INVALID_PAYLOAD]);
        }
        let now = gas.now();
        match activation.event.target {
            Some(target) if target != owner && runtime.position(world, target, now).is_some() => {
                if self.engages(activation.event.payload) {
                    if !runtime.is_alive(world, target, now) {
                        return Err(tags[native::FAIL_TARGET_DEAD]);
                    }
                    // A click on the target already engaged: nothing to
                    // walk to, and the loop goes on undisturbed.
                    if runtime.engaged_on(world, now, owner, target) {
                        return Err(tags[native::FAIL_ALREADY_ACTIVE]);
                    }
                    // The attacker ceiling's click-time peek: a full target
                    // is refused before the walk, not after it. Best
                    // effort: the engage checks again on arrival, when a
                    // place may have been taken meanwhile.
                    if !runtime.would_accept_attacker(world, target, owner) {
                        return Err(tags[native::FAIL_OVERWHELMED]);
                    }
                }
                Ok(())
            }
            _ => Err(tags[native::FAIL_NO_TARGET]),
        }
    }

    fn activate(&self, cx: &mut AbilityCx<'_>) {
        self.poll(cx);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _reason: crate::abilities::WakeReason) {
        self.poll(cx);
    }

    fn end(&self, cx: &mut AbilityCx<'_>, _reason: EndReason) {
        end_chase(&self.0, cx.world, cx.gas, cx.owner, cx.event.target);
    }
}

impl QueuedInteract {
    fn engages(&self, payload: Option<Tag>) -> bool {
        payload == Some(self.0.tags()[native::TRIGGER_ENGAGE])
    }

    fn poll(&self, cx: &mut AbilityCx<'_>) {
        let runtime = &*self.0;
        let (Some(target), Some(interaction)) = (cx.event.target, cx.event.payload) else {
            cx.end();
            return;
        };
        let engages = self.engages(Some(interaction));
        let now = cx.gas.now();
        if engages && !runtime.is_alive_exclusive(cx.world, target, now) {
            let dead = runtime.tags()[native::FAIL_TARGET_DEAD];
            cx.end_with(EndReason::Behaviour(dead));
            return;
        }
        // One look at the walker for what a poll needs of it: its kind's
        // poll interval and, to engage, its engagement range (what
        // `in_engagement_reach` reads).
        let walker = cx
            .world
            .query_one_mut::<(&Combatant, &AbilitySystem)>(cx.owner)
            .ok()
            .map(|(c, system)| {
                let poll = runtime.defs().kind(c.kind).chase_poll_interval;
                (
                    poll,
                    engages.then(|| snapshot_of(runtime, c, system, now).range_cm),
                )
            });
        let range_cm = if engages {
            walker.and_then(|(_, range)| range)
        } else {
            Some(runtime.defs().settings.melee_range_cm)
        };
        let reached = range_cm
            .is_some_and(|r| runtime.within_reach_exclusive(cx.world, cx.owner, target, r, now));
        if !reached {
            chase_step(runtime, cx.world, cx.gas, cx.owner, target);
            match walker {
                Some((poll, _)) => cx.wait_delay(poll),
                None => cx.end(),
            }
            return;
        }
        // Arrived: the chase ends and the body halts here (a chase leaves
        // the body coasting to the last point it was sent to, which would
        // carry the walker on past the reach it came for). Then the
        // walk-up ends, so the interaction starts with it gone
        // (Action.QueuedInteract no longer owned).
        end_chase(runtime, cx.world, cx.gas, cx.owner, Some(target));
        runtime.pawn.stop_movement(cx.world, cx.owner, now);
        cx.end();
        let mut event = GameplayEvent::new(interaction)
            .target(target)
            .instigator(cx.owner);
        event.object = cx.event.object;
        // Whoever asked for the walk-up asks for the interaction: a
        // client's click may start only what a client may (never a
        // server-only ability named as the payload).
        event.origin = cx.event.origin;
        cx.gas.handle_event(cx.world, cx.owner, event);
    }
}

/// A fresh move order for `entity` to `to`: cancels its walk-up and its
/// engagement (the abilities tagged `Action.QueuedInteract` or
/// `Action.Combat.AutoAttack`; their teardowns end the chase), then moves
/// the body through the pawn. Returns how many abilities it cancelled.
///
/// A destination that is not a finite point (a client's click can carry
/// anything) is refused with `Activation.Fail.InvalidPayload`, and
/// nothing changes: a body sent there would hold a position no range
/// test passes and no snapshot accepts.
pub fn move_order(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    entity: Entity,
    to: Vec2,
) -> Result<usize, Tag> {
    let tags = runtime.tags();
    if !(to.x.is_finite() && to.y.is_finite()) {
        return Err(tags[native::FAIL_INVALID_PAYLOAD]);
    }
    let mut cancel = TagSet::new();
    cancel.insert(tags[native::ACTION_QUEUED_INTERACT]);
    cancel.insert(tags[native::ACTION_COMBAT_AUTO_ATTACK]);
    let cancelled = gas.cancel_abilities(world, entity, &cancel, &TagSet::new());
    let now = gas.now();
    runtime.pawn.move_to(world, entity, to, now);
    Ok(cancelled)
}
