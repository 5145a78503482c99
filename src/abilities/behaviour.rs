//! [`AbilityBehaviour`]: what an ability does, as game code (or the combat
//! layer) writes it; and the [`AbilityCx`] it works through.

use hecs::{Entity, World};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::def::{AbilityDef, AbilityId};
use super::event::GameplayEvent;
use super::outcome::{ActivationFailure, EndReason, WakeReason};
use super::state::{InstanceKey, Wait};
use super::system::AbilitySystem;
use crate::attributes::AttributeId;
use crate::effects::{ApplyOutcome, EffectError, EffectKey, EffectSpec};
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
///
/// ```
/// use gaskit::prelude::*;
///
/// /// Meditates: every second restores 5 Focus, until Focus is full or
/// /// the owner is disturbed (data cancels it). Counts its breaths in its
/// /// instance state.
/// struct Meditate { calm: EffectId, focus: AttributeId }
///
/// impl AbilityBehaviour for Meditate {
///     fn activate(&self, cx: &mut AbilityCx<'_>) {
///         if cx.commit().is_err() {
///             return cx.end();
///         }
///         cx.wait_delay(SimDuration::from_secs(1));
///     }
///
///     fn wake(&self, cx: &mut AbilityCx<'_>, _reason: WakeReason) {
///         let breaths: u32 = cx.state::<u32>() + 1;
///         cx.set_state(&breaths);
///         let owner = cx.owner;
///         let _ = cx.apply_effect(owner, EffectSpec::new(self.calm));
///         let full = cx.world.get::<&AbilitySystem>(owner).map_or(true, |s| s.current(self.focus) >= 100.0);
///         if full { cx.end() } else { cx.wait_delay(SimDuration::from_secs(1)) }
///     }
///
///     fn end(&self, cx: &mut AbilityCx<'_>, reason: EndReason) {
///         println!("meditated {} breaths ({reason:?})", cx.state::<u32>());
///     }
/// }
///
/// let mut builder = CatalogBuilder::new();
/// builder.tags().add_source("game.tags", "Ability.Meditate\n");
/// builder.add_source("game.ron", r#"(
///     attributes: [(name: "Focus", base: 80, max: 100)],
///     effects: [(name: "GE_Calm", modifiers: [(attribute: "Focus", op: Flat, magnitude: Constant(5))])],
///     abilities: [(name: "GA_Meditate", trigger: "Ability.Meditate", behaviour: Registered("Meditate"))],
/// )"#);
/// let mut gas = Gas::new(builder.build().unwrap());
/// let calm = gas.catalog().effects().get("GE_Calm").unwrap();
/// let focus = gas.catalog().attributes().get("Focus").unwrap();
/// gas.register_behaviour("Meditate", Meditate { calm, focus }).unwrap();
///
/// let mut world = hecs::World::new();
/// let monk = world.spawn((gas.new_ability_system(),));
/// let meditate = gas.catalog().abilities().get("GA_Meditate").unwrap();
/// gas.grant_ability(&mut world, monk, meditate, 1).unwrap();
/// let trigger = gas.catalog().tags().get("Ability.Meditate").unwrap();
/// gas.handle_event(&mut world, monk, GameplayEvent::new(trigger));
/// gas.advance_to(&mut world, SimTime::from_secs(10));
/// assert_eq!(world.get::<&AbilitySystem>(monk).unwrap().current(focus), 100.0);
/// ```
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

    /// A wait ended. Woken by its delay, the instance still reads as
    /// waiting for it ([`AbilitySystem::waiting_for`]) until this returns,
    /// as Unreal's delay task is still active while it broadcasts: a
    /// [`wait_delay`](AbilityCx::wait_delay) here re-arms that same wait,
    /// and returning without a new wait leaves the instance waiting for
    /// nothing.
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
    /// The state of an instance that has ended, for its teardown.
    pub(crate) ended_state: Option<crate::abilities::StateText>,
}

/// A behaviour's per-instance state: any serde type with a default. Kept
/// with the instance in its serialized form, so snapshots, checksums and
/// rollbacks carry it (a channel's tick count, a combo's step).
pub trait InstanceState: Serialize + DeserializeOwned + Default {}

impl<T: Serialize + DeserializeOwned + Default> InstanceState for T {}

impl AbilityCx<'_> {
    /// True while the instance is active.
    pub fn is_active(&self) -> bool {
        self.gas
            .instance_exists(self.world, self.owner, self.instance)
    }

    /// This instance's state: the default until [`set_state`](Self::set_state)
    /// writes one. Inside [`AbilityBehaviour::end`] it is the state the
    /// instance ended with. A state written as another type reads as the
    /// default.
    pub fn state<T: InstanceState>(&self) -> T {
        // Read where it is kept, not copied out first.
        let read = |text: &str| ron::from_str(text).ok();
        let state = match &self.ended_state {
            Some(text) => read(text),
            None => self
                .world
                .get::<&AbilitySystem>(self.owner)
                .ok()
                .and_then(|s| read(s.abilities.instances.get(self.instance)?.state.as_deref()?)),
        };
        state.unwrap_or_default()
    }

    /// Replaces this instance's state. Does nothing once it has ended.
    pub fn set_state<T: InstanceState>(&mut self, state: &T) {
        let Ok(text) = ron::to_string(state) else {
            return;
        };
        if let Ok(system) = self.world.query_one_mut::<&mut AbilitySystem>(self.owner) {
            if let Some(instance) = system.abilities.instances.get_mut(self.instance) {
                instance.state = Some(Box::new(text));
            }
        }
    }

    /// Starts the cooldown (with its authored duration), then pays the
    /// cost, as Unreal's commit does; both or, when either is refused,
    /// neither (the cost is judged as the owner will stand once the
    /// cooldown's tags are held; content whose cooldown refuses its own
    /// cost another way, by an immunity it grants, is at odds with itself
    /// and can leave the cooldown alone). A teardown may commit (a channel that starts its cooldown
    /// as it ends), unless the ability was revoked: an ability no longer
    /// granted commits nothing ([`ActivationFailure::NoBehaviour`]).
    pub fn commit(&mut self) -> Result<(), ActivationFailure> {
        self.gas
            .commit_ability(self.world, self.owner, self.ability, self.level, None)
    }

    /// [`commit`](Self::commit) with a cooldown of `seconds` (the
    /// behaviour decides the duration, as a spell's cast interval does),
    /// set as the cooldown effect's SetByCaller duration. An ability
    /// whose cooldown lasts a fixed length, or that has none, refuses it
    /// ([`ActivationFailure::UnsettableCooldown`]), spending nothing.
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
            .end_instance(self.world, self.owner, self.instance, reason);
    }

    /// Replaces the instance's wait with `wait` (a delay's length in
    /// `delay`): what every `wait_*` asks of the context.
    fn wait_for(&mut self, wait: Wait, delay: Option<SimDuration>) {
        self.gas
            .set_wait(self.world, self.owner, self.instance, wait, delay);
    }

    /// [`wait_for`](Self::wait_for) a wait that names something of the
    /// catalog's; one on something the catalog does not hold ends the
    /// instance ([`EndReason::InvalidWait`]).
    fn wait_on(&mut self, wait: Wait) {
        if wait.is_known(self.gas.catalog()) {
            self.wait_for(wait, None);
        } else {
            self.end_with(EndReason::InvalidWait);
        }
    }

    /// Wakes the instance after `delay` (replacing any other wait). Like
    /// every wait, it does nothing once the instance has ended, so a
    /// behaviour may ask after an action that might have ended it.
    pub fn wait_delay(&mut self, delay: SimDuration) {
        self.wait_for(Wait::Delay, Some(delay));
    }

    /// Wakes the instance when the owner receives an event matching `tag`.
    pub fn wait_event(&mut self, tag: Tag) {
        self.wait_on(Wait::Event(tag));
    }

    /// Wakes the instance when the owner holds `tag` (parent-aware; right
    /// after this call if it already does, as Unreal's tag waits). The
    /// owner's only: for another entity's tag, an observer of
    /// `Observe::tag_added(tag).of(other)` that sends the owner an event
    /// this instance waits on ([`wait_event`](Self::wait_event)) does it.
    pub fn wait_tag_added(&mut self, tag: Tag) {
        self.wait_on(Wait::TagAdded(tag));
    }

    /// Wakes the instance once the owner's current `attribute` is below
    /// `threshold`, strictly (right after this call if it already is): a
    /// retreat at low health.
    pub fn wait_attribute_below(&mut self, attribute: AttributeId, threshold: f64) {
        self.wait_on(Wait::AttributeBelow(attribute, threshold));
    }

    /// Wakes the instance once the owner's current `attribute` is above
    /// `threshold`, strictly (right after this call if it already is): a
    /// channel that waits for mana.
    pub fn wait_attribute_above(&mut self, attribute: AttributeId, threshold: f64) {
        self.wait_on(Wait::AttributeAbove(attribute, threshold));
    }

    /// Wakes the instance when the owner's active effect `key` ends, for
    /// whatever reason (right after this call if it already has): a
    /// shield that recasts when it breaks. An effect key is its host's:
    /// the key of an effect applied to another entity (a curse on the
    /// target) names nothing of the owner's, so this would wake at once,
    /// or when an unrelated effect of the owner's ends. Hear of such an
    /// end with an observer of that entity's effects
    /// (`Observe::effects().of(target)`), or of the tag it grants there
    /// going (`Observe::tag_removed(tag).of(target)`).
    pub fn wait_effect_removed(&mut self, key: EffectKey) {
        self.wait_for(Wait::EffectRemoved(key), None);
    }

    /// Wakes the instance when the owner no longer holds `tag` (right
    /// after this call if it already does not: a channel that waits out a
    /// stun starts at once when there is none).
    pub fn wait_tag_removed(&mut self, tag: Tag) {
        self.wait_on(Wait::TagRemoved(tag));
    }
}
