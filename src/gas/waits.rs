//! Long-running ability instances: their waits (a delay, an event, a tag,
//! an attribute threshold, an effect's end), the wake-ups that end them,
//! and the one place a behaviour's context is built.
//!
//! A delay's timer outlives the wake-up it causes. While the woken
//! instance's behaviour runs, the timer stays pending under its key (the
//! instance still names it and still reads as waiting for that delay); a
//! behaviour that waits for another delay re-arms it for the new instant,
//! and one that does anything else lets it go. An engagement loop, which
//! waits for its next swing at the end of every swing, so sets its wait
//! without looking its instance up again: the instance already holds
//! everything that wait needs.

use hecs::{Entity, World};
use smallvec::SmallVec;

use super::lent::Lent;
use super::{Gas, Timer};
use crate::abilities::{
    AbilityBehaviour, AbilityCx, AbilityId, AbilitySystem, Behaviour, EndReason, GameplayEvent,
    InstanceKey, Wait, WakeReason,
};
use crate::tags::{Tag, TagChanges};
use crate::time::{Lane, SimDuration, SimTime, TimerKey};

/// The instance a delay is waking, while its behaviour runs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Waking {
    owner: Entity,
    instance: InstanceKey,
    /// The delay's timer, pending under this key until re-armed or let go.
    timer: TimerKey,
    /// The timer was re-armed.
    rearmed: bool,
}

impl Gas {
    pub(crate) fn instance_exists(
        &self,
        world: &World,
        owner: Entity,
        instance: InstanceKey,
    ) -> bool {
        world
            .get::<&AbilitySystem>(owner)
            .is_ok_and(|s| s.abilities.instances.contains_key(instance))
    }

    /// Replaces an instance's wait.
    pub(crate) fn set_wait(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        wait: Wait,
        delay: Option<SimDuration>,
    ) {
        if let (Wait::Delay, Some(delay)) = (wait, delay) {
            if self.rearm_waking(world, owner, instance, delay) {
                return;
            }
        }
        let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(owner) else {
            return;
        };
        if !system.abilities.instances.contains_key(instance) {
            return;
        }
        // Lazy ends that came while nothing watched stay unseen; those to
        // come are noticed once the host is watched (below).
        self.catch_up(owner, system);
        // Watched already (by the trace, an observer or another wait), the
        // host's lazy ends are noticed already: noticed again, each would
        // keep a second notice, moved on at every refresh, for good.
        let was_watched = self.watches(system);
        let entry = &mut system.abilities.instances[instance];
        let old_timer = entry.wait_timer.take();
        entry.wait = wait;
        if let Wait::Event(tag) = wait {
            self.waited_events.insert(tag);
        }
        // A further delay on the instance its delay is waking keeps that
        // timer's key, as the short way does: which way a wait takes
        // depends on what watches (a trace), and the key is saved.
        let at = delay.map(|delay| self.now + delay);
        let kept = old_timer
            .filter(|&timer| at.is_some_and(|at| self.rearm_if_waking(owner, instance, timer, at)));
        if let (Some(timer), None) = (old_timer, kept) {
            self.timers.cancel(timer);
        }
        if let Some(at) = at {
            entry.wait_timer = Some(kept.unwrap_or_else(|| {
                self.timers
                    .schedule(at, Timer::AbilityWake { owner, instance })
            }));
        }
        system.note_wait(wait);
        if !was_watched && self.watches(system) {
            self.notice_lazy_ends_of(owner, system);
        }
        if wait.on_state() || wait.on_tags() {
            // Already met: the reconcile ending this call wakes it.
            self.queue_reconcile(owner, system);
        }
    }

    /// Sets a wait for a further `delay` on the instance its delay is
    /// waking, when its timer can simply be re-armed: the instance, which
    /// still waits for a delay under that timer's key, then needs no
    /// change. `false`, nothing done, otherwise (another instance, a timer
    /// already re-armed or let go, an owner gone, a lazy end that the long
    /// way would tell): the long way then sets the wait.
    fn rearm_waking(
        &mut self,
        world: &World,
        owner: Entity,
        instance: InstanceKey,
        delay: SimDuration,
    ) -> bool {
        let Some(waking) = self.waking else {
            return false;
        };
        // The long way first catches the owner's host up, which tells the
        // lazy ends due on a watched host: none may be waiting to be told.
        // An instance that ended has let its timer go; a despawned owner
        // cannot say so.
        if self.lazy_end_may_be_untold() || !world.contains(owner) {
            return false;
        }
        self.rearm_if_waking(owner, instance, waking.timer, self.now + delay)
    }

    /// Re-arms `timer` for `at` when it is the delay now waking `instance`
    /// and not yet re-armed; `false`, nothing done, otherwise.
    fn rearm_if_waking(
        &mut self,
        owner: Entity,
        instance: InstanceKey,
        timer: TimerKey,
        at: SimTime,
    ) -> bool {
        let Some(waking) = self.waking.filter(|w| {
            w.owner == owner && w.instance == instance && w.timer == timer && !w.rearmed
        }) else {
            return false;
        };
        let rearmed = self.timers.rearm(timer, at, Lane::Normal);
        if rearmed {
            self.waking = Some(Waking { rearmed, ..waking });
        }
        rearmed
    }

    /// Clears the wait of an instance if `matches` it; `true` if cleared.
    pub(super) fn clear_wait(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        matches: impl Fn(Wait) -> bool,
    ) -> bool {
        let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(owner) else {
            return false;
        };
        let Some(entry) = system.abilities.instances.get_mut(instance) else {
            return false;
        };
        if !matches(entry.wait) {
            return false;
        }
        entry.wait = Wait::Nothing;
        if let Some(timer) = entry.wait_timer.take() {
            self.timers.cancel(timer);
        }
        true
    }

    /// Runs a behaviour's `wake`, first ending the instance if its target
    /// has gone.
    pub(super) fn wake(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        reason: WakeReason,
    ) {
        let Some(what) = world.get::<&AbilitySystem>(owner).ok().and_then(|s| {
            s.abilities
                .instances
                .get(instance)
                .map(|i| (i.ability(), i.activation.event(), i.level()))
        }) else {
            return;
        };
        self.wake_instance(world, owner, instance, what, reason);
    }

    /// [`wake`](Self::wake) with the instance's ability, event and level
    /// already read.
    fn wake_instance(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        what: (AbilityId, GameplayEvent, u32),
        reason: WakeReason,
    ) {
        if what.1.target.is_some_and(|t| !self.in_play(world, t)) {
            self.end_instance(world, owner, instance, EndReason::TargetLost);
            return;
        }
        self.run_behaviour(world, owner, instance, what, |b, cx| b.wake(cx, reason));
    }

    /// Calls the registered behaviour of `ability`, if it has one, with a
    /// context for `instance` (one of `owner`'s). The one place a context
    /// is built: activation, wake-ups and teardown all come through here.
    pub(super) fn run_behaviour(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        what: (AbilityId, GameplayEvent, u32),
        call: impl FnOnce(&dyn AbilityBehaviour, &mut AbilityCx<'_>),
    ) {
        self.run_behaviour_with(world, owner, instance, what, None, call);
    }

    /// [`run_behaviour`](Self::run_behaviour) for an instance that has
    /// ended, whose last state the teardown may still read.
    pub(super) fn run_behaviour_with(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        (ability, event, level): (AbilityId, GameplayEvent, u32),
        ended_state: Option<crate::abilities::StateText>,
        call: impl FnOnce(&dyn AbilityBehaviour, &mut AbilityCx<'_>),
    ) {
        let Behaviour::Registered(id) = self.catalog.abilities().def(ability).behaviour else {
            return;
        };
        let Some(behaviour) = self.behaviours[id.index()].as_mut().map(Lent::lend) else {
            return;
        };
        let mut cx = AbilityCx {
            world,
            gas: self,
            owner,
            ability,
            instance,
            event,
            level,
            ended_state,
        };
        call(&*behaviour, &mut cx);
        if let Some(registered) = self.behaviours[id.index()].as_mut() {
            registered.give_back(behaviour);
        }
    }

    /// A delay elapsed: `timer`, kept pending (see the module docs).
    pub(super) fn on_wake_timer(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        timer: TimerKey,
    ) {
        // One look at the instance: what waking it needs.
        let waiting = world
            .query_one_mut::<&AbilitySystem>(owner)
            .ok()
            .and_then(|system| {
                let entry = system.abilities.instances.get(instance)?;
                (entry.wait == Wait::Delay && entry.wait_timer == Some(timer)).then_some((
                    entry.ability(),
                    entry.activation.event(),
                    entry.level(),
                ))
            });
        let Some(what) = waiting else {
            self.timers.cancel(timer);
            return;
        };
        let outer = self.waking.replace(Waking {
            owner,
            instance,
            timer,
            rearmed: false,
        });
        self.wake_instance(world, owner, instance, what, WakeReason::Delay);
        let waking = std::mem::replace(&mut self.waking, outer);
        // Neither re-armed nor let go by a new wait or the instance's end:
        // the instance now waits for nothing.
        if waking.is_some_and(|w| !w.rearmed) && self.timers.is_pending(timer) {
            self.timers.cancel(timer);
            if let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(owner) {
                if let Some(entry) = system.abilities.instances.get_mut(instance) {
                    entry.wait = Wait::Nothing;
                    entry.wait_timer = None;
                }
            }
        }
    }

    /// Reactions of abilities to the owner's tag changes: cancel-on-tags-added
    /// (parent-aware), then tag waits.
    pub(super) fn ability_tag_reactions(
        &mut self,
        world: &mut World,
        owner: Entity,
        appeared: &TagChanges,
        vanished: &TagChanges,
    ) {
        let (cancel, wake) = {
            let Ok(system) = world.get::<&AbilitySystem>(owner) else {
                return;
            };
            let abilities = self.catalog.abilities();
            let owned = system.tags(self.catalog.effects(), self.now);
            let owned = owned.tags();
            let mut cancel: SmallVec<[(InstanceKey, Tag); 2]> = SmallVec::new();
            let mut wake: SmallVec<[(InstanceKey, Wait, WakeReason); 2]> = SmallVec::new();
            for (key, instance) in system.abilities.instances.iter() {
                let def = abilities.def(instance.ability());
                if let Some(leaf) = def.cancelling_tag(|| appeared.iter()) {
                    cancel.push((key, leaf));
                    continue;
                }
                match instance.wait {
                    // A tag noted as appeared that every read already
                    // treats as gone (an effect applied for no time) is
                    // not held: no wake, as a removal wakes only once the
                    // tag is gone.
                    met @ Wait::TagAdded(t) if appeared.has(t) && owned.has(t) => {
                        wake.push((key, met, WakeReason::TagAdded(t)))
                    }
                    met @ Wait::TagRemoved(t) if vanished.has(t) && !owned.has(t) => {
                        wake.push((key, met, WakeReason::TagRemoved(t)))
                    }
                    _ => {}
                }
            }
            (cancel, wake)
        };
        for (instance, tag) in cancel {
            self.end_instance(world, owner, instance, EndReason::CancelledByTag(tag));
        }
        self.target_tag_reactions(world, owner, appeared);
        // Only the wait that was met: a teardown or a wake above may have
        // run game code that changed this instance's wait since.
        for (instance, met, reason) in wake {
            if self.clear_wait(world, owner, instance, |w| w == met) {
                self.wake(world, owner, instance, reason);
            }
        }
    }

    /// Wakes the owner's instances whose attribute or effect wait is met,
    /// or whose tag wait already was when it was set (as Unreal's tag
    /// waits fire at once when the tag is already there, or already gone).
    pub(super) fn ability_state_waits(&mut self, world: &mut World, owner: Entity) {
        let wake: SmallVec<[(InstanceKey, Wait, WakeReason); 2]> = {
            let Ok(system) = world.get::<&AbilitySystem>(owner) else {
                return;
            };
            let attribute = |attribute, value| WakeReason::Attribute { attribute, value };
            let effects = self.catalog.effects();
            system
                .abilities
                .instances
                .iter()
                .filter_map(|(key, instance)| {
                    let reason = match instance.wait {
                        Wait::AttributeBelow(a, threshold) => Some(system.current(a))
                            .filter(|&v| v < threshold)
                            .map(|v| attribute(a, v)),
                        Wait::AttributeAbove(a, threshold) => Some(system.current(a))
                            .filter(|&v| v > threshold)
                            .map(|v| attribute(a, v)),
                        Wait::EffectRemoved(effect) => {
                            (system.host.effect(effect, self.now).is_none())
                                .then_some(WakeReason::EffectRemoved(effect))
                        }
                        Wait::TagAdded(t) => (system.host.has_tag(effects, self.now, t))
                            .then_some(WakeReason::TagAdded(t)),
                        Wait::TagRemoved(t) => (!system.host.has_tag(effects, self.now, t))
                            .then_some(WakeReason::TagRemoved(t)),
                        _ => None,
                    };
                    Some((key, instance.wait, reason?))
                })
                .collect()
        };
        // Only the wait that was met (see `ability_tag_reactions`).
        for (instance, met, reason) in wake {
            if self.clear_wait(world, owner, instance, |w| w == met) {
                self.wake(world, owner, instance, reason);
            }
        }
    }

    /// Ends the instances aimed at `target` (on other entities, or its own
    /// aimed at itself) whose `cancel_on_target_tags_added` holds a tag
    /// that just appeared on it.
    fn target_tag_reactions(&mut self, world: &mut World, target: Entity, appeared: &TagChanges) {
        if appeared.is_empty() {
            return;
        }
        let doomed: SmallVec<[(Entity, InstanceKey, Tag); 2]> = {
            let Ok(system) = world.get::<&AbilitySystem>(target) else {
                return;
            };
            let abilities = self.catalog.abilities();
            // Instances elsewhere aimed here, and this entity's own aimed at
            // itself (which the list leaves out).
            let own = system
                .abilities
                .instances
                .iter()
                .filter(|(_, i)| i.activation.target() == Some(target))
                .map(|(key, _)| (target, key));
            system
                .abilities
                .targeted_by
                .iter()
                .copied()
                .chain(own)
                .filter_map(|(owner, instance)| {
                    let ability = world
                        .get::<&AbilitySystem>(owner)
                        .ok()?
                        .abilities
                        .instances
                        .get(instance)?
                        .ability();
                    let leaf = abilities
                        .def(ability)
                        .target_cancelling_tag(|| appeared.iter(), owner == target)?;
                    Some((owner, instance, leaf))
                })
                .collect()
        };
        for (owner, instance, tag) in doomed {
            self.end_instance(world, owner, instance, EndReason::TargetGainedTag(tag));
        }
    }
}
