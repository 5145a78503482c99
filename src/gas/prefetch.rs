//! [`Prefetch`]: the timer loop asking for the memory its next timers will
//! read, and when it does.

use hecs::{Entity, World};

use super::scheduled::Timer;
use super::Gas;
use crate::abilities::AbilitySystem;
use crate::effects::{EffectHost, EffectTimer};

/// How the prefetch stage reads the [`AbilitySystem`] of an entity a
/// coming timer will run game code for (an ability instance's wake-up, an
/// effect's periodic execution and the hooks after it), asking on the way
/// for the game's own components that code will read first (with
/// [`prefetch_component`]). One query for the system and those components
/// costs little more than the system's alone. An effect's expiry runs no
/// game code on its usual path and is not read through it. Set with
/// [`Gas::set_wake_reader`]; the default, [`read_ability_system`], reads
/// the system alone.
///
/// It must change nothing: a run is the same with or without prefetching.
pub type WakeReader = for<'w> fn(&'w mut World, Entity) -> Option<&'w AbilitySystem>;

/// How the prefetch stage asks for what a coming wake-up will reach
/// through its entity's components: another entity (a fighter's swing
/// reads its target's defences and damages it), or what a component holds
/// on the heap (the runes a cast spends). Called one stage after the
/// [`WakeReader`], when the entity's own components have arrived, so it
/// can read them (whom it targets, where its items are) cheaply and ask
/// for what they point to with [`prefetch_component`]. Called for the
/// timers the wake reader is: an ability's wake-up and an effect's
/// periodic execution. Set with [`Gas::set_reach_reader`]; the default,
/// [`reach_nothing`], asks for nothing.
///
/// Like the wake reader it must change nothing: a run is the same with or
/// without prefetching.
pub type ReachReader = fn(&mut World, Entity);

/// The default [`ReachReader`]: a wake-up reaches nothing beyond its own
/// entity.
pub fn reach_nothing(_world: &mut World, _entity: Entity) {}

/// The default [`WakeReader`]: the ability system alone.
pub fn read_ability_system(world: &mut World, entity: Entity) -> Option<&AbilitySystem> {
    world.query_one_mut::<&AbilitySystem>(entity).ok()
}

/// Asks the memory system for the lines `component` spans, for a
/// [`WakeReader`] or a [`ReachReader`]: a component, or a slice of what a
/// component holds on the heap (`&vec[..]`; up to sixteen lines). A
/// hint: it changes nothing the program can see and cannot fault.
///
/// ```
/// struct Satchel {
///     items: Vec<(u16, u32)>,
/// }
///
/// fn ask_for(satchel: &Satchel) {
///     gaskit::prefetch_component(satchel); // the component itself
///     gaskit::prefetch_component(&satchel.items[..]); // what it holds on the heap
/// }
/// # ask_for(&Satchel { items: vec![(1, 20), (2, 5)] });
/// ```
#[inline(always)]
pub fn prefetch_component<T: ?Sized>(component: &T) {
    crate::prefetch::value(component);
}

/// Asks the memory system for what effects on `system`'s entity read: its
/// effect host (effect slots, owned tags, attribute values, reconcile
/// notes), and not what its abilities keep (granted abilities, running
/// instances). For a [`ReachReader`] whose wake-up applies an effect to
/// another entity or reads its tags or attributes: [`prefetch_component`]
/// on the whole system would also ask for the lines of its abilities,
/// which such a wake-up never reads (at a million fighters, some 5 % of an
/// attack's time). The first effect slots are asked for a second time
/// where they lie inline, with the host, which measured faster than
/// asking once, as for the entity a timer wakes.
/// A hint: it changes nothing the program can see and cannot fault.
///
/// ```
/// use gaskit::hecs::{Entity, World};
/// use gaskit::AbilitySystem;
///
/// /// Whom an entity's wake-up heals, refreshing a stack on them.
/// struct Ward(Entity);
///
/// fn reach_ward(world: &mut World, entity: Entity) {
///     let Ok(ward) = world.query_one_mut::<&Ward>(entity).map(|w| w.0) else {
///         return;
///     };
///     if let Ok(system) = world.query_one_mut::<&AbilitySystem>(ward) {
///         gaskit::prefetch_effect_host(system);
///     }
/// }
/// # let mut world = World::new();
/// # let healer = world.spawn((1u8,));
/// # reach_ward(&mut world, healer);
/// ```
#[inline(always)]
pub fn prefetch_effect_host(system: &AbilitySystem) {
    crate::prefetch::value(&system.host);
    system.host.effects.prefetch_first(EFFECT_SLOTS);
}

/// Whether [`Gas::advance_to`] prefetches for the timers it is about to
/// run.
///
/// In a large world an attack waits mostly on memory: the first read of
/// each entity it touches misses every cache. Before each timer it runs,
/// the context can ask for what a timer a few places later in the same
/// instant's queue will read (that timer's payload, its entity's
/// [`AbilitySystem`], the effect and ability slots it holds), so those
/// misses overlap with the work in between. In a world that fits the
/// caches, the lookups this takes are pure cost. Prefetching changes no
/// state: a run is the same, checksum and trace, with it or without it.
///
/// Measured on the arena (README, "Prefetching"): an attack takes 26 %
/// less time at 30 000 fighters and a fifth to a third less at 100 000, a
/// million fighters run 16–23 % faster; at 10 000 it is about even, at
/// 3 000 3 % slower.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Prefetch {
    /// Prefetch while the world holds at least
    /// [`AUTO_FROM`](Prefetch::AUTO_FROM) entities.
    #[default]
    Auto,
    /// Always prefetch.
    Always,
    /// Never prefetch.
    Never,
}

impl Prefetch {
    /// Entities from which [`Prefetch::Auto`] prefetches: about where the
    /// measurements cross over, with room to spare (a fighter's state is
    /// about 1.5 KiB, so this is some 23 MiB of it).
    pub const AUTO_FROM: u32 = 16_384;

    /// Does the policy prefetch in a world of `entities` entities?
    pub fn applies(self, entities: u32) -> bool {
        match self {
            Prefetch::Auto => entities >= Self::AUTO_FROM,
            Prefetch::Always => true,
            Prefetch::Never => false,
        }
    }
}

/// How many timers ahead the entity's state is asked for (its payload
/// twice as far, the slots its ability system points to half as far): far
/// enough for the lines to arrive before their timer runs, near enough
/// that they are still cached then. Measured flat from 2 to 16 at 100 000
/// fighters.
const AHEAD: usize = 4;
/// How many timers ahead the entity's record in the world is read (its
/// payload, asked for at `2 * AHEAD`, has arrived by then; its ability
/// system is asked for at `AHEAD`, through that record).
const RECORD_AHEAD: usize = 3 * AHEAD / 2;
/// An entity's effect slots asked for: its first four (a fighter holds
/// three, and no more than it holds is asked for).
const EFFECT_SLOTS: usize = 4;
/// Bytes at the head of an ability system that an effect's expiry reads:
/// the bookkeeping and the host's hot fields, up to its attribute values.
const HOT_HEAD_BYTES: usize =
    std::mem::offset_of!(AbilitySystem, host) + std::mem::offset_of!(EffectHost, attributes);

impl Gas {
    /// Sets whether [`advance_to`](Self::advance_to) prefetches.
    pub fn set_prefetch(&mut self, prefetch: Prefetch) {
        self.prefetch = prefetch;
    }

    /// Whether [`advance_to`](Self::advance_to) prefetches.
    pub fn prefetch(&self) -> Prefetch {
        self.prefetch
    }

    /// Sets how the prefetch stage reads the entities coming timers will
    /// wake (see [`WakeReader`]): a game whose wake-ups read its own
    /// components (the combat layer's `Combatant` and `Kinematic`) asks for
    /// them here, in the same query as the ability system.
    pub fn set_wake_reader(&mut self, reader: WakeReader) {
        self.wake_reader = reader;
    }

    /// Sets how the prefetch stage asks for what coming wake-ups reach
    /// through their entities' components (see [`ReachReader`]): the
    /// combat layer asks for the target of each coming swing and the
    /// fighter's inventory.
    pub fn set_reach_reader(&mut self, reader: ReachReader) {
        self.reach_reader = reader;
    }

    /// Asks for what the coming timers of the open bucket will read, in
    /// four stages on four timers, so that each stage reads only what an
    /// earlier one asked for: the payload of the timer `2 * AHEAD` on;
    /// the entity record of the timer `RECORD_AHEAD` on (whose payload was
    /// asked for two timers ago), by reading it; the ability system of the
    /// timer `AHEAD` on (found through that record, read two timers ago);
    /// the slots of the timer `AHEAD / 2` on (whose ability system,
    /// holding their addresses, was asked for `AHEAD / 2` timers ago).
    /// Slots an ability system keeps inline (its first effects, its
    /// running instance) are asked for twice, with the system and again
    /// here: a build that did not ask again took 1.049 of the previous
    /// build's time at a million fighters after warm-up where this one
    /// took 0.931 (thirty-second round, one sitting of alternated runs).
    /// Why is not established; the system, its `Combatant` and its body
    /// are sixteen lines asked for at once, and some of those requests
    /// may be dropped.
    /// And for what the handler about to run will most likely write when
    /// it schedules: the pool block the timer queue hands out next (each
    /// schedule asks for its next payload slot itself).
    ///
    /// What is asked for follows what the timer's handler reads. An
    /// ability's wake-up and an effect's periodic execution run game code
    /// (the behaviour; the hooks after an execution): all of the ability
    /// system, and what the game's [`WakeReader`] asks for beside it; then
    /// for a wake-up the first effect slots (a cooldown's time remaining
    /// scans them) and the instance's slot, for an execution its effect's
    /// slot; and what the game's [`ReachReader`] asks for through the
    /// entity's components (a swing's target). An expiry reads only the
    /// system's hot head (the effect slots kept inline, owned tags,
    /// reconcile notes) and its one effect slot, and nothing more is
    /// asked for: most expiries are cooldowns, the fighter's own swing
    /// comes long after more lines would have left the cache, and asking
    /// for them cost a tenth of an attack's time at 100 000 fighters and
    /// at a million.
    pub(super) fn prefetch_upcoming(&self, world: &mut World) {
        self.timers.prefetch_next_schedule();
        self.timers.prefetch_upcoming(2 * AHEAD);
        // The entity's record in the world (where its components are),
        // which every lookup of it reads first and whose address hecs
        // keeps to itself: a question answered from it and waited on by
        // nothing brings it in while the timers between run, so the
        // lookups of the stage after find it cached. At a million entities
        // the records alone (some 16 MB) miss every cache.
        if let Some(entity) = self.timers.upcoming(RECORD_AHEAD).and_then(|t| t.entity()) {
            std::hint::black_box(world.contains(entity));
        }
        if let Some(&timer) = self.timers.upcoming(AHEAD) {
            match timer {
                Timer::AbilityWake { owner: entity, .. }
                | Timer::Effect(EffectTimer::Period { entity, .. }) => {
                    if let Some(system) = (self.wake_reader)(world, entity) {
                        crate::prefetch::value(system);
                    }
                }
                Timer::Effect(EffectTimer::Expire { entity, .. }) => {
                    if let Some(system) = read_ability_system(world, entity) {
                        crate::prefetch::head(std::slice::from_ref(system), HOT_HEAD_BYTES);
                    }
                }
                Timer::Event(_) => {}
            }
        }
        if let Some(&timer) = self.timers.upcoming(AHEAD / 2) {
            match timer {
                Timer::AbilityWake { owner, instance } => {
                    if let Some(system) = read_ability_system(world, owner) {
                        system.host.effects.prefetch_first(EFFECT_SLOTS);
                        system.abilities.instances.prefetch(instance);
                        (self.reach_reader)(world, owner);
                    }
                }
                Timer::Effect(EffectTimer::Period { entity, key }) => {
                    if let Some(system) = read_ability_system(world, entity) {
                        system.host.effects.prefetch(key);
                        (self.reach_reader)(world, entity);
                    }
                }
                Timer::Effect(EffectTimer::Expire { entity, key }) => {
                    if let Some(system) = read_ability_system(world, entity) {
                        system.host.effects.prefetch(key);
                    }
                }
                Timer::Event(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use hecs::World;

    use super::Prefetch;
    use crate::time::SimTime;
    use crate::{CatalogBuilder, Gas};

    #[test]
    fn auto_prefetches_from_its_threshold_on() {
        assert!(!Prefetch::Auto.applies(Prefetch::AUTO_FROM - 1));
        assert!(Prefetch::Auto.applies(Prefetch::AUTO_FROM));
        assert!(Prefetch::Always.applies(0));
        assert!(!Prefetch::Never.applies(u32::MAX));
        assert_eq!(Prefetch::default(), Prefetch::Auto);
    }

    /// The timer queue's own prefetch (the slot its next schedule takes)
    /// is on exactly while the context prefetches: a world below the
    /// threshold, or one set to `Never`, pays nothing for it.
    #[test]
    fn the_timer_queue_prefetches_exactly_when_the_context_does() {
        let mut gas = Gas::new(CatalogBuilder::new().build().unwrap());
        let mut world = World::new();
        let mut run = |gas: &mut Gas, prefetch, until| {
            gas.set_prefetch(prefetch);
            gas.advance_to(&mut world, SimTime::from_micros(until));
            gas.timers.is_prefetching()
        };
        assert!(!run(&mut gas, Prefetch::Auto, 1));
        assert!(run(&mut gas, Prefetch::Always, 2));
        assert!(!run(&mut gas, Prefetch::Never, 3));
    }
}
