//! [`Snapshot`]: the whole gaskit state of a world, saved and restored for
//! rollback netcode, replays and tests.
//!
//! A snapshot holds every gaskit component of every entity that has one
//! ([`AbilitySystem`]: attributes, active effects with their remaining
//! times, tags and counts, granted abilities and long-running instances with
//! their pending waits; [`Combatant`]: target, weave queue, chase state,
//! attacker set, skills, equipment; [`Kinematic`], [`Name`], [`NetOwner`])
//! and the context's state (clock, timers, RNG position, reconcile queue).
//! Restoring it into a world and context built over the same catalog gives
//! a state from which every later step is identical to the original run
//! (entities spawned afterwards aside: hecs hands out their handles).
//!
//! ```
//! use gaskit::arena::{Arena, ArenaConfig};
//! use gaskit::snapshot::Snapshot;
//! use gaskit::prelude::*;
//!
//! let mut arena = Arena::new(ArenaConfig { combatants: 8, ..ArenaConfig::default() }).unwrap();
//! let frame = SimDuration::from_millis(50);
//! arena.run_for(SimDuration::from_secs(3), frame);
//! let saved = Snapshot::save(&arena.world, &arena.gas);
//!
//! arena.run_for(SimDuration::from_secs(2), frame);
//! let after_two_seconds = gaskit::snapshot::checksum(&arena.world, &arena.gas);
//!
//! // Roll back and play the same two seconds again.
//! saved.restore(&mut arena.world, &mut arena.gas).unwrap();
//! arena.run_for(SimDuration::from_secs(2), frame);
//! assert_eq!(gaskit::snapshot::checksum(&arena.world, &arena.gas), after_two_seconds);
//! ```
//!
//! # What is and is not saved
//!
//! Content and code are not state: the catalog, registered behaviours and
//! hooks come from the context restored into, and a snapshot records the
//! catalog's [fingerprint](crate::Catalog::fingerprint) so it is refused by
//! a context whose ids mean other things. The trace is an output: restoring
//! cuts the context's trace back to its length at the save (rolling back
//! within one context) and leaves a shorter one alone. Components the game
//! defines are the game's to save. Entities keep their handles; entities
//! holding gaskit components that the snapshot does not list are despawned.
//!
//! Snapshots are trusted local state (a rollback buffer, a replay file the
//! server wrote). The serialized form carries a checksum, so a damaged file
//! is refused rather than half-loaded; saves that come from players are
//! [`Profile`](crate::combat::Profile)s, which load with fallbacks.

use std::fmt;

use hecs::{Entity, World};
use serde::{Deserialize, Serialize};

use crate::abilities::{AbilitySystem, NetOwner};
use crate::checksum::checksum_of;
use crate::combat::{Combatant, Kinematic};
use crate::gas::{Gas, GasState};
use crate::trace::Name;

/// Version of the snapshot layout; bumped whenever a saved type changes.
const FORMAT: u32 = 1;

/// Handles at or past this id are refused: restoring one would make hecs
/// size its entity table for it.
const MAX_ENTITY_ID: u32 = 1 << 26;

/// The gaskit components of one entity.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct EntityState {
    entity: Entity,
    system: Option<AbilitySystem>,
    combatant: Option<Combatant>,
    kinematic: Option<Kinematic>,
    name: Option<Name>,
    net_owner: Option<NetOwner>,
}

/// The same, borrowed from the world, for checksums without copies.
#[derive(Serialize)]
struct EntityView<'a> {
    entity: Entity,
    system: Option<&'a AbilitySystem>,
    combatant: Option<&'a Combatant>,
    kinematic: Option<&'a Kinematic>,
    name: Option<&'a Name>,
    net_owner: Option<&'a NetOwner>,
}

/// The whole gaskit state of a world and its context. See the
/// [module docs](self).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Snapshot {
    format: u32,
    catalog: u64,
    gas: GasState,
    entities: Vec<EntityState>,
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

impl Snapshot {
    /// Copies the gaskit state of `world` and `gas`.
    pub fn save(world: &World, gas: &Gas) -> Snapshot {
        let mut query = world.query::<GaskitComponents>();
        let entities = views(&mut query)
            .into_iter()
            .map(|view| EntityState {
                entity: view.entity,
                system: view.system.cloned(),
                combatant: view.combatant.cloned(),
                kinematic: view.kinematic.copied(),
                name: view.name.cloned(),
                net_owner: view.net_owner.copied(),
            })
            .collect();
        Snapshot {
            format: FORMAT,
            catalog: gas.catalog().fingerprint(),
            gas: gas.save_state(),
            entities,
        }
    }

    /// Puts the saved state back into `world` and `gas`: every saved entity
    /// gets its handle and components back (components the snapshot does
    /// not hold are removed), entities holding gaskit components that the
    /// snapshot does not list are despawned, and the context's clock,
    /// timers, RNG and queues are replaced. Entities without gaskit
    /// components are the game's and are left alone. Refused, with nothing
    /// changed, under another layout or catalog, or when a saved handle's
    /// slot is taken by one of the game's entities.
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
        let saved = |entity: Entity| {
            self.entities
                .binary_search_by_key(&entity.id(), |e| e.entity.id())
                .ok()
                .map(|i| self.entities[i].entity)
        };
        // Check everything before changing anything.
        if self
            .entities
            .last()
            .is_some_and(|e| e.entity.id() >= MAX_ENTITY_ID)
        {
            return Err(SnapshotError::Damaged(
                "an entity id beyond any world gaskit runs".into(),
            ));
        }
        let mut stale = Vec::new();
        for entity in world.iter().map(|e| e.entity()) {
            let ours = has_gaskit_component(world, entity);
            match saved(entity) {
                Some(handle) if handle == entity => {}
                // A gaskit entity the snapshot does not hold: despawned.
                _ if ours => stale.push(entity),
                // The game's entity sits where a saved one must go.
                Some(handle) => return Err(SnapshotError::HandleInUse(handle)),
                None => {}
            }
        }
        for entity in stale {
            let _ = world.despawn(entity);
        }
        let dirty = self.gas.dirty();
        for state in &self.entities {
            if !world.contains(state.entity) {
                world.spawn_at(state.entity, ());
            }
            let mut system = state.system.clone();
            if let Some(system) = &mut system {
                system.queued = dirty.contains(&state.entity);
            }
            put(world, state.entity, system);
            put(world, state.entity, state.combatant.clone());
            put(world, state.entity, state.kinematic);
            put(world, state.entity, state.name.clone());
            put(world, state.entity, state.net_owner);
        }
        gas.load_state(&self.gas);
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
    pub fn from_ron(text: &str) -> Result<Snapshot, SnapshotError> {
        let sealed: Sealed<Snapshot> =
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

/// The gaskit components, each optional, as one query.
type GaskitComponents<'a> = (
    Entity,
    Option<&'a AbilitySystem>,
    Option<&'a Combatant>,
    Option<&'a Kinematic>,
    Option<&'a Name>,
    Option<&'a NetOwner>,
);

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

/// The checksum of the live gaskit state of `world` and `gas`: the same
/// number [`Snapshot::save`] followed by [`Snapshot::checksum`] gives, but
/// read straight from the components, without copying them.
pub fn checksum(world: &World, gas: &Gas) -> u64 {
    #[derive(Serialize)]
    struct View<'a> {
        format: u32,
        catalog: u64,
        gas: GasState,
        entities: Vec<EntityView<'a>>,
    }
    let mut query = world.query::<GaskitComponents>();
    checksum_of(&View {
        format: FORMAT,
        catalog: gas.catalog().fingerprint(),
        gas: gas.save_state(),
        entities: views(&mut query),
    })
}

/// Every entity holding a gaskit component, borrowed, ordered by id: the one
/// list both saving and checksumming walk, so they hash the same data.
fn views<'q>(query: &'q mut hecs::QueryBorrow<'_, GaskitComponents<'_>>) -> Vec<EntityView<'q>> {
    let mut entities: Vec<EntityView<'q>> = query
        .iter()
        .filter_map(|(entity, system, combatant, kinematic, name, net_owner)| {
            let any = system.is_some()
                || combatant.is_some()
                || kinematic.is_some()
                || name.is_some()
                || net_owner.is_some();
            any.then_some(EntityView {
                entity,
                system,
                combatant,
                kinematic,
                name,
                net_owner,
            })
        })
        .collect();
    entities.sort_unstable_by_key(|e| e.entity.id());
    entities
}

fn has_gaskit_component(world: &World, entity: Entity) -> bool {
    world.satisfies::<&AbilitySystem>(entity)
        || world.satisfies::<&Combatant>(entity)
        || world.satisfies::<&Kinematic>(entity)
        || world.satisfies::<&Name>(entity)
        || world.satisfies::<&NetOwner>(entity)
}
