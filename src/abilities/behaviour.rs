//! [`AbilityBehaviour`]: what an ability does, as game code (or the combat
//! layer) writes it; and the [`AbilityCx`] it works through.

use hecs::{Entity, World};

use super::def::{AbilityDef, AbilityId};
use super::event::GameplayEvent;
use super::outcome::{ActivationFailure, EndReason, WakeReason};
use super::state::{InstanceKey, Wait};
use crate::effects::{ApplyOutcome, EffectError, EffectSpec};
use crate::gas::Gas;
use crate::tags::Tag;
use crate::time::SimDuration;

/// What an ability asking to activate looks like to validation.
#[derive(Copy, Clone, Debug)]
pub struct Activation<'a> {
    /// The entity running the ability.
    pub owner: Entity,
    /// The ability.
    pub ability: AbilityId,
    /// Its definition.
    pub def: &'a AbilityDef,
    /// Its granted level.
    pub level: u32,
    /// The triggering event.
    pub event: &'a GameplayEvent,
}

/// The behaviour of an ability, registered with the context by name
/// ([`Gas::register_behaviour`]) and referred to from data as
/// `behaviour: Registered("Name")`.
///
/// The context runs the generic rules (authority, tags, cooldown, cost)
/// before [`can_activate`](Self::can_activate); a behaviour adds its own
/// read-only validation there, so that a refused activation changes
/// nothing. [`activate`](Self::activate) then runs with the instance live
/// and its owned tags granted: it commits (cost and cooldown), applies
/// effects, and either ends or waits. [`end`](Self::end) is the teardown,
/// called exactly once on every end path.
pub trait AbilityBehaviour: Send + Sync {
    /// Extra validation before commit. Return an `Activation.Fail.*` tag to refuse.
    fn can_activate(
        &self,
        world: &World,
        gas: &Gas,
        activation: &Activation<'_>,
    ) -> Result<(), Tag> {
        let _ = (world, gas, activation);
        Ok(())
    }

    /// The ability is active. Commit, act, then end or wait.
    fn activate(&self, cx: &mut AbilityCx<'_>);

    /// A wait ended.
    fn wake(&self, cx: &mut AbilityCx<'_>, reason: WakeReason) {
        let _ = (cx, reason);
    }

    /// Teardown: the instance has ended (it is already gone when this runs).
    fn end(&self, cx: &mut AbilityCx<'_>, reason: EndReason) {
        let _ = (cx, reason);
    }
}

/// What a behaviour works through: the world, the context and its own
/// instance.
pub struct AbilityCx<'a> {
    /// The game's world.
    pub world: &'a mut World,
    /// The context.
    pub gas: &'a mut Gas,
    /// The entity running the ability.
    pub owner: Entity,
    /// The ability.
    pub ability: AbilityId,
    /// This instance (stale inside [`AbilityBehaviour::end`]).
    pub instance: InstanceKey,
    /// The triggering event.
    pub event: GameplayEvent,
    /// The granted level.
    pub level: u32,
}

impl AbilityCx<'_> {
    /// True while the instance is active.
    pub fn is_active(&self) -> bool {
        self.gas
            .instance_exists(self.world, self.owner, self.instance)
    }

    /// Pays the cost and applies the cooldown (with its authored duration).
    pub fn commit(&mut self) -> Result<(), ActivationFailure> {
        self.gas
            .commit_ability(self.world, self.owner, self.ability, self.level, None)
    }

    /// Pays the cost and applies the cooldown for `seconds` (the behaviour
    /// decides the duration, as a spell's cast interval does).
    pub fn commit_with_cooldown(&mut self, seconds: f64) -> Result<(), ActivationFailure> {
        self.gas.commit_ability(
            self.world,
            self.owner,
            self.ability,
            self.level,
            Some(seconds),
        )
    }

    /// Applies an effect.
    pub fn apply_effect(
        &mut self,
        target: Entity,
        spec: EffectSpec,
    ) -> Result<ApplyOutcome, EffectError> {
        self.gas.apply_effect(self.world, target, spec)
    }

    /// Ends the instance as completed.
    pub fn end(&mut self) {
        self.end_with(EndReason::Completed);
    }

    /// Ends the instance for `reason`.
    pub fn end_with(&mut self, reason: EndReason) {
        self.gas
            .end_ability(self.world, self.owner, self.instance, reason);
    }

    /// Wakes the instance after `delay` (replacing any other wait).
    pub fn wait_delay(&mut self, delay: SimDuration) {
        self.gas.set_wait(
            self.world,
            self.owner,
            self.instance,
            Wait::Delay,
            Some(delay),
        );
    }

    /// Wakes the instance when the owner receives an event matching `tag`.
    pub fn wait_event(&mut self, tag: Tag) {
        self.gas.set_wait(
            self.world,
            self.owner,
            self.instance,
            Wait::Event(tag),
            None,
        );
    }

    /// Wakes the instance when the owner gains `tag`.
    pub fn wait_tag_added(&mut self, tag: Tag) {
        self.gas.set_wait(
            self.world,
            self.owner,
            self.instance,
            Wait::TagAdded(tag),
            None,
        );
    }

    /// Wakes the instance when the owner loses `tag`.
    pub fn wait_tag_removed(&mut self, tag: Tag) {
        self.gas.set_wait(
            self.world,
            self.owner,
            self.instance,
            Wait::TagRemoved(tag),
            None,
        );
    }
}
