//! The data form of gameplay effects, as written in `abilities/*.ron`.
//!
//! ```ron
//! effects: [
//!     // The shared attack tick: a duration set per attack by the caller.
//!     (
//!         name: "GE_Attack_Cooldown",
//!         duration: Duration(SetByCaller("Cooldown.Combat.Attack")),
//!         granted_tags: ["Cooldown.Combat.Attack"],
//!     ),
//!     // Damage: the amount arrives under the damage-type tag.
//!     (
//!         name: "GE_Damage",
//!         modifiers: [(attribute: "Damage", op: Flat, magnitude: SetByCaller("Combat.DamageType"))],
//!     ),
//!     // In combat: one instance, refreshed by every hit.
//!     (
//!         name: "GE_InCombat",
//!         duration: Duration(Constant(20)),
//!         granted_tags: ["Status.InCombat"],
//!         stacking: (by: Target, limit: 1, duration: Refresh),
//!     ),
//! ]
//! ```

use serde::{Deserialize, Serialize};

use crate::attributes::ModOp;
use crate::tags::TagQueryDef;

/// One gameplay effect as written in data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectData {
    /// Unique name.
    pub name: String,
    /// `Instant` (default), `Duration(magnitude)` in seconds, or `Infinite`.
    #[serde(default)]
    pub duration: DurationData,
    /// Periodic execution of a duration or infinite effect.
    #[serde(default)]
    pub period: Option<PeriodData>,
    /// Attribute modifiers.
    #[serde(default)]
    pub modifiers: Vec<ModifierData>,
    /// Execution calculations (code registered on the catalog builder by
    /// these names) run on every instant or periodic execution.
    #[serde(default)]
    pub executions: Vec<String>,
    /// Tags describing the effect itself (matched by removal and immunity).
    #[serde(default)]
    pub asset_tags: Vec<String>,
    /// Tags the target owns while the effect is active and not inhibited.
    #[serde(default)]
    pub granted_tags: Vec<String>,
    /// The target must match this to receive the effect.
    #[serde(default)]
    pub application_requirements: TagQueryDef,
    /// While the target does not match this, the effect is inhibited: it
    /// stays applied but grants nothing and modifies nothing.
    #[serde(default)]
    pub ongoing_requirements: TagQueryDef,
    /// Applying this effect removes the target's effects whose asset or
    /// granted tags match any of these.
    #[serde(default)]
    pub remove_effects_with_tags: Vec<String>,
    /// While active, blocks incoming effects whose tags (asset tags plus the
    /// spec's tags) match this query.
    #[serde(default)]
    pub immunity: Option<TagQueryDef>,
    /// How re-applications combine; absent means every application is a new
    /// instance.
    #[serde(default)]
    pub stacking: Option<StackingData>,
    /// Gameplay cues fired by this effect.
    #[serde(default)]
    pub cues: Vec<CueData>,
    /// Applies to, and ticks on, an owner the `life` rule calls dead (a
    /// revive, the death marker itself). Other effects are refused there.
    #[serde(default)]
    pub affects_dead: bool,
    /// The chance the effect applies at all (`0.25`: one in four), rolled
    /// on the context's RNG; a miss is a block with reason `chance`.
    #[serde(default)]
    pub chance: Option<f64>,
    /// Abilities the target holds while the effect is active (granted on
    /// application, revoked with the effect unless granted otherwise too).
    #[serde(default)]
    pub granted_abilities: Vec<String>,
    /// Effects applied to the target, after this one applies, when the
    /// target matches their query (an on-hit proc).
    #[serde(default)]
    pub conditional: Vec<ConditionalData>,
    /// Effects applied to the owner when this one runs out.
    #[serde(default)]
    pub on_expiry: Vec<String>,
    /// Effects applied to the owner when this one is removed before it
    /// runs out (cancelled, cleansed, its owner dying).
    #[serde(default)]
    pub on_removal: Vec<String>,
}

/// An effect applied with another when the target matches `when`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionalData {
    /// The effect applied.
    pub effect: String,
    /// What the target must match (the empty query: always).
    #[serde(default)]
    pub when: TagQueryDef,
}

/// The game's rule for dead owners, set once for every effect (the core
/// content section `life`):
///
/// ```ron
/// life: (dead: (any: ["Status.Dead"]), periodic: Remove),
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LifeData {
    /// An owner matching this query is dead: new effects are refused
    /// (unless they set `affects_dead`), and periodic effects follow `periodic`.
    pub dead: TagQueryDef,
    /// What an active periodic effect does while its owner is dead.
    #[serde(default)]
    pub periodic: PeriodicWhileDead,
}

/// What an active periodic effect does while its owner is dead.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PeriodicWhileDead {
    /// It keeps its place but skips its executions until the owner lives again.
    #[default]
    Pause,
    /// It is removed the moment the owner dies.
    Remove,
}

/// How long an effect lasts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum DurationData {
    /// Executes once, changing base values.
    #[default]
    Instant,
    /// Lasts this many seconds, modifying current values.
    Duration(MagnitudeData),
    /// Lasts until removed.
    Infinite,
}

/// A periodic execution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeriodData {
    /// Seconds between executions (> 0).
    pub seconds: f64,
    /// Also execute at the moment of application.
    #[serde(default)]
    pub execute_on_application: bool,
}

/// One attribute modifier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModifierData {
    /// The attribute modified.
    pub attribute: String,
    /// `Flat`, `Points`, `Mult` or `Override`.
    pub op: ModOp,
    /// How big.
    pub magnitude: MagnitudeData,
}

/// How a magnitude is computed when the effect is applied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum MagnitudeData {
    /// A fixed number.
    Constant(f64),
    /// A table by effect level: level 1 is the first entry; levels past the
    /// end use the last one.
    Scaled(Vec<f64>),
    /// A value the caller sets on the spec under this tag (or under exactly
    /// one descendant of it, as damage types are keys under
    /// `Combat.DamageType`). Missing is an error, never 0.
    SetByCaller(String),
    /// Computed from an attribute of the source or the target.
    Attribute(AttributeMagnitudeData),
    /// Computed by a magnitude calculation registered on the catalog
    /// builder under this name.
    Custom(String),
}

/// `coefficient × (attribute + pre_add) + post_add`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeMagnitudeData {
    /// The attribute read.
    pub attribute: String,
    /// Whose attribute: `Source` or `Target` (default).
    #[serde(default)]
    pub from: CaptureFrom,
    /// Follow the attribute while the effect is active (default: snapshot
    /// at application). Live captures that read what other live effects
    /// move settle within the call that moved them, a link of a chain a
    /// pass, for eight passes: a longer chain, or a cycle (which settles
    /// only in the limit), stops there, records `reaction_limit`, and
    /// carries on at the next move. A source that leaves (despawned) is
    /// read no more: the modifier keeps the value it last read. A live
    /// capture of a target attribute that its own modifier moves (itself,
    /// or through a derived rule or bound) is a load error.
    #[serde(default)]
    pub live: bool,
    /// Multiplier (default 1).
    #[serde(default = "one")]
    pub coefficient: f64,
    /// Added before multiplying.
    #[serde(default)]
    pub pre_add: f64,
    /// Added after multiplying.
    #[serde(default)]
    pub post_add: f64,
}

fn one() -> f64 {
    1.0
}

/// Whose attribute an attribute-based magnitude reads.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CaptureFrom {
    /// The entity that applied the effect.
    Source,
    /// The entity receiving it.
    #[default]
    Target,
}

/// Stacking of re-applications.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackingData {
    /// One stack per target, or one per (target, source).
    pub by: StackBy,
    /// Most stacks (≥ 1).
    #[serde(default = "one_u32")]
    pub limit: u32,
    /// What a re-application does to the remaining duration.
    #[serde(default)]
    pub duration: DurationOnReapply,
    /// What a re-application does to the period phase.
    #[serde(default)]
    pub period: PeriodOnReapply,
    /// What expiry does to the stack.
    #[serde(default)]
    pub on_expiry: StackExpiry,
    /// Plays the add cues at the first application only. By default
    /// every re-application of the stack plays them again, with the
    /// stacked magnitude, as Unreal's stacks do (its
    /// `bSuppressStackingCues` is this flag).
    #[serde(default)]
    pub suppress_cues: bool,
}

fn one_u32() -> u32 {
    1
}

/// Which applications share one stack.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StackBy {
    /// All applications of the effect to one target share a stack.
    Target,
    /// Each source has its own stack on the target.
    Source,
}

/// A re-application's effect on duration.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DurationOnReapply {
    /// Restart the duration (with the new spec's duration).
    #[default]
    Refresh,
    /// Leave the running duration alone.
    Keep,
}

/// A re-application's effect on the period phase.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PeriodOnReapply {
    /// Keep ticking on the original phase.
    #[default]
    Keep,
    /// Restart the period from the re-application; a period that
    /// executes on application executes again at once, as at the first.
    Reset,
}

/// What happens when a stacked effect's duration runs out.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StackExpiry {
    /// Remove the effect with all its stacks.
    #[default]
    ClearAll,
    /// Remove one stack and restart the duration; the last stack removes the effect.
    RemoveOneAndRefresh,
}

/// A gameplay cue an effect fires.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CueData {
    /// A tag under `GameplayCue.*`.
    pub tag: String,
    /// When it fires.
    pub on: CueEvent,
}

/// The moments an effect can fire a cue.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CueEvent {
    /// Each instant or periodic execution.
    Execute,
    /// When a duration or infinite effect starts (added, or resumed from
    /// inhibition), and when a re-application stacks onto it (unless its
    /// stacking has `suppress_cues`).
    Add,
    /// When it is removed.
    Remove,
}
