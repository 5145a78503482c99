//! [`Snapshot`]: the whole gaskit state of a world, saved and restored for
//! rollback netcode, replays and tests.
//!
//! A snapshot holds what a rollback owns: every entity with an
//! [`AbilitySystem`] (attributes, active effects with their remaining
//! times, tags and counts, granted abilities and long-running instances
//! with their pending waits and state), with its [`Name`], [`NetOwner`] and
//! the components of the game modules named by its type parameter; and the
//! context's state (clock, timers, RNG position, reconcile queue). Entities
//! without an `AbilitySystem` are the game's: never saved, never touched
//! by a restore. Restoring into a world and context built over the same
//! catalog gives a state from which every later step is identical to the
//! original run (entities spawned afterwards aside: hecs hands out their
//! handles).
//!
//! # Handles across despawns
//!
//! A restore puts each entity back under its own handle. hecs reuses a
//! despawned entity's slot for the next spawn, so a game that rolls back
//! sets a rollback window ([`Gas::set_rollback_window`]): entities
//! despawned through [`Gas::despawn`] keep their handle, emptied and marked
//! [`Reserved`], until the window has passed, and a
//! rollback across a despawn and a respawn finds the slot free. Without it
//! (or after a raw `world.despawn`), a restore that needs a slot one of the
//! game's entities took is refused with [`SnapshotError::HandleInUse`].
//!
//! # The game's components
//!
//! `Snapshot<C>` saves the components `C` names besides the core's: one
//! [`RollbackComponent`] type, or a tuple of them (tuples nest, so a module
//! can name its set as one type and a game add to it). The combat layer's
//! set is `gaskit::combat::CombatComponents`; a game running combat and its
//! own `Mana` regeneration timer saves `Snapshot<(CombatComponents, ManaTimer)>`.
//!
//! ```
//! use gaskit::arena::{Arena, ArenaConfig};
//! use gaskit::combat::CombatComponents;
//! use gaskit::snapshot::{self, Snapshot};
//! use gaskit::prelude::*;
//!
//! let mut arena = Arena::new(ArenaConfig { combatants: 8, ..ArenaConfig::default() }).unwrap();
//! let frame = SimDuration::from_millis(50);
//! arena.run_for(SimDuration::from_secs(3), frame);
//! let saved = Snapshot::<CombatComponents>::save(&arena.world, &arena.gas);
//!
//! arena.run_for(SimDuration::from_secs(2), frame);
//! let after_two_seconds = snapshot::checksum::<CombatComponents>(&arena.world, &arena.gas);
//!
//! // Roll back and play the same two seconds again.
//! saved.restore(&mut arena.world, &mut arena.gas).unwrap();
//! arena.run_for(SimDuration::from_secs(2), frame);
//! assert_eq!(snapshot::checksum::<CombatComponents>(&arena.world, &arena.gas), after_two_seconds);
//! ```
//!
//! # What is and is not saved
//!
//! Content and code are not state: the catalog, registered behaviours and
//! hooks come from the context restored into, and a snapshot records the
//! catalog's [fingerprint](crate::Catalog::fingerprint) so it is refused by
//! a context whose ids mean other things; every id it holds is checked
//! against the catalog, and a running instance whose behaviour is not
//! registered is refused. The trace is an output: restoring rewinds the
//! context's trace to where it stood at the save (rolling back within one
//! context; see [`Trace`](crate::Trace) for draining) and leaves a trace
//! that has not got that far alone.
//!
//! Save at a step's boundary, before the frame's inputs, as a rollback
//! loop does: what game code does between steps without a call that
//! delivers (a cue fired with [`Gas::fire_cue`], a record kept with
//! [`Gas::record_game`]) reaches observers at the next call and is not
//! part of a save taken in between. A restore forgets such deliveries
//! still owed by the timeline it abandons, and the count of work the
//! per-instant budget keeps starts again from the restored instant.
//!
//! Snapshots are trusted local state (a rollback buffer, a replay file the
//! server wrote). The serialized form carries a checksum, so a damaged file
//! is refused rather than half-loaded; saves that come from players belong
//! in a game's own profile format, which loads with fallbacks (the combat
//! layer's is `gaskit::combat::Profile`).

use std::fmt;

use hecs::{Entity, World};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::abilities::{AbilitySystem, NetOwner};
use crate::catalog::Catalog;
use crate::checksum::checksum_of;
use crate::gas::{Gas, GasState, Reserved};
use crate::trace::Name;

mod validate;

/// Version of the snapshot layout; bumped whenever a saved type changes.
const FORMAT: u32 = 2;

/// Handles at or past this id are refused: restoring one would make hecs
/// size its entity table for it.
const MAX_ENTITY_ID: u32 = 1 << 26;

/// A component a [`Snapshot`] saves: implement it (no methods) for each
/// component of a game module that is part of its rollback state.
///
/// ```
/// use gaskit::snapshot::RollbackComponent;
///
/// /// Seconds of oxygen left, part of the simulation.
/// #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
/// struct Oxygen(f64);
///
/// impl RollbackComponent for Oxygen {}
/// ```
pub trait RollbackComponent:
    hecs::Component + Clone + fmt::Debug + Serialize + DeserializeOwned
{
    /// Whether this saved value may be restored into a context built on
    /// `catalog`: every id it holds that indexes the catalog's content
    /// means something there. A restore asks it of every saved value
    /// before it changes anything, and refuses the snapshot with the
    /// reason ([`SnapshotError::Invalid`]) otherwise, rather than
    /// restoring a value the next step would panic on. Everything is
    /// accepted by default: implement it for a component holding such ids.
    fn check(&self, catalog: &Catalog) -> Result<(), String> {
        let _ = catalog;
        Ok(())
    }
}

/// The game components a [`Snapshot`] saves besides the core's: `()`, one
/// [`RollbackComponent`], or a tuple of sets (up to eight, nesting allowed).
pub trait SnapshotComponents: 'static {
    /// One entity's saved components.
    type Saved: Clone + fmt::Debug + Serialize + DeserializeOwned + Send + Sync;

    /// Copies `entity`'s components of the set.
    fn save(world: &World, entity: Entity) -> Self::Saved;

    /// Puts `saved` back on `entity`, removing the set's components it
    /// does not hold.
    fn restore(world: &mut World, entity: Entity, saved: &Self::Saved);

    /// Whether `saved` may be restored into a context built on `catalog`
    /// (see [`RollbackComponent::check`]); asked before a restore changes
    /// anything. Everything is accepted by default.
    fn check(saved: &Self::Saved, catalog: &Catalog) -> Result<(), String> {
        let _ = (saved, catalog);
        Ok(())
    }
}

impl SnapshotComponents for () {
    type Saved = ();

    fn save(_: &World, _: Entity) {}

    fn restore(_: &mut World, _: Entity, _: &()) {}
}

impl<T: RollbackComponent> SnapshotComponents for T {
    type Saved = Option<T>;

    fn save(world: &World, entity: Entity) -> Option<T> {
        world.get::<&T>(entity).ok().map(|c| (*c).clone())
    }

    fn restore(world: &mut World, entity: Entity, saved: &Option<T>) {
        put(world, entity, saved.clone());
    }

    fn check(saved: &Option<T>, catalog: &Catalog) -> Result<(), String> {
        saved.as_ref().map_or(Ok(()), |value| value.check(catalog))
    }
}

macro_rules! tuple_components {
    ($($name:ident $index:tt),+) => {
        impl<$($name: SnapshotComponents),+> SnapshotComponents for ($($name,)+) {
            type Saved = ($($name::Saved,)+);

            fn save(world: &World, entity: Entity) -> Self::Saved {
                ($($name::save(world, entity),)+)
            }

            fn restore(world: &mut World, entity: Entity, saved: &Self::Saved) {
                $($name::restore(world, entity, &saved.$index);)+
            }

            fn check(saved: &Self::Saved, catalog: &Catalog) -> Result<(), String> {
                $($name::check(&saved.$index, catalog)?;)+
                Ok(())
            }
        }
    };
}

tuple_components!(A 0);
tuple_components!(A 0, B 1);
tuple_components!(A 0, B 1, C 2);
tuple_components!(A 0, B 1, C 2, D 3);
tuple_components!(A 0, B 1, C 2, D 3, E 4);
tuple_components!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_components!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_components!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// The saved components of one entity: the core's, then the game's.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
struct EntityState<C: SnapshotComponents> {
    entity: Entity,
    system: Option<AbilitySystem>,
    name: Option<Name>,
    net_owner: Option<NetOwner>,
    game: C::Saved,
}

/// The whole gaskit state of a world and its context, with the game
/// components `C`. See the [module docs](self).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Snapshot<C: SnapshotComponents = ()> {
    format: u32,
    catalog: u64,
    gas: GasState,
    entities: Vec<EntityState<C>>,
}

/// Why a snapshot could not be restored or read. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// Saved under a catalog with a different fingerprint.
    ForeignCatalog {
        /// The fingerprint the snapshot was saved under.
        saved: u64,
        /// The fingerprint of the context restored into.
        current: u64,
    },
    /// Saved by a version of gaskit with another snapshot layout.
    Format {
        /// The layout version in the snapshot.
        saved: u32,
        /// The layout version this build reads.
        supported: u32,
    },
    /// The serialized text is not a snapshot, or its checksum does not
    /// match its content.
    Damaged(String),
    /// The state could not be written out (a value the format cannot hold).
    Write(String),
    /// A saved entity's handle slot is held by an entity without gaskit
    /// components (one of the game's), which a restore will not destroy.
    HandleInUse(Entity),
    /// The snapshot holds an id this context's catalog does not have, or a
    /// running instance whose behaviour is not registered here.
    Invalid(String),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::ForeignCatalog { saved, current } => write!(
                f,
                "snapshot saved under catalog {saved:016x}, this context runs catalog {current:016x}"
            ),
            SnapshotError::Format { saved, supported } => write!(
                f,
                "snapshot layout version {saved}, this build reads version {supported}"
            ),
            SnapshotError::Damaged(why) => write!(f, "damaged snapshot: {why}"),
            SnapshotError::Write(why) => write!(f, "snapshot could not be written: {why}"),
            SnapshotError::HandleInUse(entity) => write!(
                f,
                "the handle slot of saved entity {entity:?} is held by a game entity without gaskit components"
            ),
            SnapshotError::Invalid(why) => write!(f, "snapshot does not fit this context: {why}"),
        }
    }
}

impl std::error::Error for SnapshotError {}

/// The serialized form: the snapshot and the checksum of its content.
#[derive(Serialize, Deserialize)]
struct Sealed<S> {
    checksum: u64,
    snapshot: S,
}

impl<C: SnapshotComponents> Snapshot<C> {
    /// Copies the state the rollback owns: every entity holding an
    /// [`AbilitySystem`] (with its `Name`, `NetOwner` and `C` components),
    /// in id order, and the context's state.
    ///
    /// An effect that [ended lazily](crate::EffectDef::ends_lazily) and
    /// still waits to be cleared is saved cleared, as the context leaves
    /// it the next time it touches the entity: a state saves the same
    /// whenever its lazy ends are cleared. Not an end not yet told (one of
    /// no length applied since the last step, or one an instant's work
    /// budget put off) that game code may hear: on an entity whose
    /// running abilities wait on its tags or state, or on any entity while
    /// an observer of effects or tags is registered (whatever entity it
    /// watches). It is saved to be told after a restore, when the saved
    /// run tells it. (With no such observer and no wait, one only the
    /// trace would record is saved cleared: what a trace records changes
    /// no save.)
    pub fn save(world: &World, gas: &Gas) -> Snapshot<C> {
        let defs = gas.catalog().effects();
        let untold = gas.untold_observed_ends();
        // Sorted as handles, before their states are read: a state is a
        // kilobyte or so, and a sort moves what it sorts.
        let mut ids: Vec<Entity> = world
            .iter()
            .map(|e| e.entity())
            .filter(|&entity| world.satisfies::<&AbilitySystem>(entity))
            .collect();
        ids.sort_unstable_by_key(|entity| entity.id());
        let entities: Vec<EntityState<C>> = ids
            .into_iter()
            .map(|entity| EntityState {
                entity,
                system: world.get::<&AbilitySystem>(entity).ok().map(|s| {
                    let mut system = (*s).clone();
                    if system.abilities.reactive_waits_held().any() {
                        // Every end here is heard: none is cleared.
                    } else if untold.is_empty() {
                        system.host.clear_lazy_ends(defs, entity, gas.now());
                    } else {
                        let heard = |key| untold.binary_search(&(entity, key)).is_ok();
                        system
                            .host
                            .clear_unnoticed_lazy_ends(defs, entity, gas.now(), heard);
                    }
                    system
                }),
                name: world.get::<&Name>(entity).ok().map(|n| (*n).clone()),
                net_owner: world.get::<&NetOwner>(entity).ok().map(|n| *n),
                game: C::save(world, entity),
            })
            .collect();
        Snapshot {
            format: FORMAT,
            catalog: gas.catalog().fingerprint(),
            gas: gas.save_state(world),
            entities,
        }
    }

    /// Puts the saved state back into `world` and `gas`: every saved entity
    /// gets its handle and components back (components the snapshot does
    /// not hold are removed; a [`Reserved`] handle is filled again),
    /// entities with an `AbilitySystem` that the snapshot does not list
    /// are despawned (kept as `Reserved` under a rollback window), and the
    /// context's clock, timers, RNG and queues are replaced. Entities
    /// without an `AbilitySystem` are the game's and are left alone.
    /// Refused, with nothing changed, under another layout or catalog,
    /// when an id does not fit this context, or when a saved handle's slot
    /// is taken by one of the game's entities, under that very handle too
    /// (a fresh world hands out the same handles: load a save into one
    /// before spawning the game's own entities there).
    pub fn restore(&self, world: &mut World, gas: &mut Gas) -> Result<(), SnapshotError> {
        if self.format != FORMAT {
            return Err(SnapshotError::Format {
                saved: self.format,
                supported: FORMAT,
            });
        }
        let current = gas.catalog().fingerprint();
        if self.catalog != current {
            return Err(SnapshotError::ForeignCatalog {
                saved: self.catalog,
                current,
            });
        }
        self.check_against(gas)?;
        let saved = |entity: Entity| {
            self.entities
                .binary_search_by_key(&entity.id(), |e| e.entity.id())
                .ok()
                .map(|i| self.entities[i].entity)
        };
        // Check everything before changing anything. A save lists its
        // entities once each, by id: the bound below reads the last, and
        // the lookup above searches by id, so a list out of order would
        // let a huge id through and miss a game entity in a saved one's
        // slot (which the spawn would then replace).
        if self
            .entities
            .windows(2)
            .any(|pair| pair[0].entity.id() >= pair[1].entity.id())
        {
            return Err(SnapshotError::Damaged(
                "entities out of order, or one saved twice".into(),
            ));
        }
        if self
            .entities
            .last()
            .is_some_and(|e| e.entity.id() >= MAX_ENTITY_ID)
        {
            return Err(SnapshotError::Damaged(
                "an entity id beyond any world gaskit runs".into(),
            ));
        }
        // Entities to despawn because a saved one needs their slot, and
        // rollback entities the snapshot does not hold.
        let mut evict = Vec::new();
        let mut retire = Vec::new();
        for entity in world.iter().map(|e| e.entity()) {
            let owned = world.satisfies::<&AbilitySystem>(entity);
            let reserved = world.satisfies::<&Reserved>(entity);
            match saved(entity) {
                // The game's entity sits where a saved one must go, under
                // another generation or the saved handle itself (a fresh
                // world hands out the same handles): it is not one of the
                // snapshot's to overwrite.
                Some(handle) if !owned && !reserved => {
                    return Err(SnapshotError::HandleInUse(handle))
                }
                Some(handle) if handle == entity => {}
                Some(_) => evict.push(entity),
                None if owned => retire.push(entity),
                None => {}
            }
        }
        for entity in evict {
            let _ = world.despawn(entity);
        }
        for entity in retire {
            gas.retire(world, entity);
        }
        let dirty = self.gas.dirty();
        for state in &self.entities {
            if !world.contains(state.entity) {
                world.spawn_at(state.entity, ());
            }
            let queued = dirty.contains(&state.entity);
            match (
                &state.system,
                world.query_one_mut::<&mut AbilitySystem>(state.entity),
            ) {
                // Copied into the one the entity holds: a system is most
                // of a kilobyte, and each move of a new one costs a copy.
                (Some(saved), Ok(system)) => {
                    system.clone_from(saved);
                    gas.adopt_restored(system, queued);
                }
                (saved, _) => {
                    let mut system = saved.clone();
                    if let Some(system) = &mut system {
                        gas.adopt_restored(system, queued);
                    }
                    put(world, state.entity, system);
                }
            }
            put(world, state.entity, state.name.clone());
            put(world, state.entity, state.net_owner);
            put::<Reserved>(world, state.entity, None);
            C::restore(world, state.entity, &state.game);
        }
        gas.load_state(&self.gas);
        // What watches lazy ends may differ from when the snapshot was
        // taken: their notices are rebuilt from the restored hosts.
        gas.rebuild_lazy_ends(world);
        Ok(())
    }

    /// The time the snapshot was taken at.
    pub fn time(&self) -> crate::SimTime {
        self.gas.now()
    }

    /// A checksum of the saved state: equal states, equal checksums, on
    /// every machine.
    pub fn checksum(&self) -> u64 {
        checksum_of(self)
    }

    /// The serialized form (RON text with a checksum of its content).
    pub fn to_ron(&self) -> Result<String, SnapshotError> {
        let sealed = Sealed {
            checksum: self.checksum(),
            snapshot: self,
        };
        ron::to_string(&sealed).map_err(|e| SnapshotError::Write(e.to_string()))
    }

    /// Reads [`to_ron`](Self::to_ron)'s form back. Text that does not parse
    /// or whose checksum does not match is refused.
    pub fn from_ron(text: &str) -> Result<Snapshot<C>, SnapshotError> {
        let sealed: Sealed<Snapshot<C>> =
            ron::from_str(text).map_err(|e| SnapshotError::Damaged(format!("{e}")))?;
        let actual = sealed.snapshot.checksum();
        if actual != sealed.checksum {
            return Err(SnapshotError::Damaged(format!(
                "checksum {:016x} does not match the content ({actual:016x})",
                sealed.checksum
            )));
        }
        Ok(sealed.snapshot)
    }
}

/// Inserts `component` on `entity`, or removes the type when `None`.
fn put<T: hecs::Component>(world: &mut World, entity: Entity, component: Option<T>) {
    match component {
        Some(component) => {
            let _ = world.insert_one(entity, component);
        }
        None => {
            let _ = world.remove_one::<T>(entity);
        }
    }
}

/// The checksum of the live gaskit state of `world` and `gas` with the game
/// components `C`: the number [`Snapshot::save`] followed by
/// [`Snapshot::checksum`] gives.
pub fn checksum<C: SnapshotComponents>(world: &World, gas: &Gas) -> u64 {
    Snapshot::<C>::save(world, gas).checksum()
}
