//! Compiled effect definitions, their settled shapes and their lookups.
//! How the data files become them, with their validation, is in
//! `compile.rs`.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::calculation::{CalculationId, Calculations, CaptureDef};
use super::data::{
    CaptureFrom, CueEvent, DurationOnReapply, PeriodOnReapply, PeriodicWhileDead, StackBy,
    StackExpiry,
};
use crate::abilities::AbilityId;
use crate::attributes::{AttributeId, ModOp};
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::names::NameTable;
use crate::tags::{Tag, TagQuery, TagSet};
use crate::time::SimDuration;

/// Dense index of an effect definition in the catalog.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EffectId(u16);

impl EffectId {
    pub(crate) const fn new(index: usize) -> Self {
        Self(index as u16)
    }

    /// The dense index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A compiled magnitude.
#[derive(Clone, Debug, PartialEq)]
pub enum Magnitude {
    /// A fixed number.
    Constant(f64),
    /// By level; level 1 is the first entry, later levels clamp to the last.
    Scaled(Box<[f64]>),
    /// The spec's value under this tag (or exactly one descendant).
    SetByCaller(Tag),
    /// `coefficient × (attribute + pre_add) + post_add`.
    Attribute(AttributeCapture),
    /// A registered magnitude calculation.
    Custom(CalculationId),
}

impl Magnitude {
    /// A `Scaled` table's value at `level`: level 1 (and 0) is the first
    /// entry, and levels past the table read its last.
    pub(crate) fn scaled_at(table: &[f64], level: u32) -> f64 {
        table[(level.max(1) as usize).min(table.len()) - 1]
    }
}

/// An attribute-based magnitude.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AttributeCapture {
    /// The attribute read.
    pub attribute: AttributeId,
    /// Source or target.
    pub from: CaptureFrom,
    /// Follow changes while active (otherwise snapshot at application).
    pub live: bool,
    /// Multiplier.
    pub coefficient: f64,
    /// Added before multiplying.
    pub pre_add: f64,
    /// Added after multiplying.
    pub post_add: f64,
}

impl AttributeCapture {
    /// The magnitude for an attribute value.
    #[inline]
    pub fn apply(&self, value: f64) -> f64 {
        self.coefficient * (value + self.pre_add) + self.post_add
    }
}

/// How long an effect lasts.
#[derive(Clone, Debug, PartialEq)]
pub enum DurationPolicy {
    /// Executes once on base values.
    Instant,
    /// Lasts the magnitude's seconds.
    Duration(Magnitude),
    /// Lasts until removed.
    Infinite,
}

impl DurationPolicy {
    /// The magnitude a `Duration` lasts, in seconds; `None` for an instant
    /// or infinite effect.
    pub fn magnitude(&self) -> Option<&Magnitude> {
        match self {
            DurationPolicy::Duration(magnitude) => Some(magnitude),
            DurationPolicy::Instant | DurationPolicy::Infinite => None,
        }
    }
}

/// Periodic execution.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Period {
    /// Time between executions.
    pub interval: SimDuration,
    /// Also execute on application.
    pub execute_on_application: bool,
}

impl Period {
    /// The shortest period data may author: a millisecond. Shorter ones
    /// are load errors, so no effect can tick a server to a standstill.
    pub const MIN: SimDuration = SimDuration::from_millis(1);
}

/// One compiled modifier.
#[derive(Clone, Debug, PartialEq)]
pub struct ModifierDef {
    /// Attribute modified.
    pub attribute: AttributeId,
    /// Operation.
    pub op: ModOp,
    /// Magnitude.
    pub magnitude: Magnitude,
    /// A `Mult` on an Interval attribute: it divides a span, so a factor
    /// of zero or below (stacked) is refused when the magnitude is known.
    pub divides_span: bool,
}

/// Compiled stacking policy.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Stacking {
    /// Per target, or per (target, source).
    pub by: StackBy,
    /// Most stacks.
    pub limit: u32,
    /// Duration on re-application.
    pub duration: DurationOnReapply,
    /// Period phase on re-application.
    pub period: PeriodOnReapply,
    /// What expiry does.
    pub on_expiry: StackExpiry,
    /// Add cues at the first application only, not at each re-application.
    pub suppress_cues: bool,
}

/// A compiled gameplay cue.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Cue {
    /// A tag under `GameplayCue.*`.
    pub tag: Tag,
    /// When it fires.
    pub on: CueEvent,
}

/// One compiled gameplay effect.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectDef {
    /// Unique name.
    pub name: String,
    /// Instant, duration or infinite.
    pub duration: DurationPolicy,
    /// Periodic execution.
    pub period: Option<Period>,
    /// Attribute modifiers.
    pub modifiers: SmallVec<[ModifierDef; 2]>,
    /// Execution calculations run on every execution.
    pub executions: SmallVec<[CalculationId; 1]>,
    /// Tags describing the effect.
    pub asset_tags: TagSet,
    /// Tags granted to the target while active and not inhibited.
    pub granted_tags: TagSet,
    /// Required of the target to apply.
    pub application_requirements: TagQuery,
    /// Required of the target to stay uninhibited.
    pub ongoing_requirements: TagQuery,
    /// Applying removes the target's effects tagged with any of these.
    pub remove_effects_with_tags: TagSet,
    /// While active, blocks incoming effects matching this.
    pub immunity: Option<TagQuery>,
    /// Stacking policy.
    pub stacking: Option<Stacking>,
    /// Cues.
    pub cues: SmallVec<[Cue; 1]>,
    /// True when any modifier reads an attribute live (an attribute
    /// magnitude, or a custom one whose calculation captures live).
    pub has_live_capture: bool,
    /// True when a modifier's magnitude is a custom calculation: on a
    /// periodic effect it is evaluated again at each execution, and the
    /// target attributes it captures once are kept at application.
    pub custom_modifiers: bool,
    /// True when a calculation (an execution, or a custom modifier
    /// magnitude) reads a source attribute live, so each periodic
    /// execution needs fresh source values.
    pub live_source_calculation: bool,
    /// True when a magnitude or a calculation reads a target attribute: a
    /// stack of it applied again reads its target without its own
    /// modifiers.
    pub reads_target: bool,
    /// True when a magnitude or a calculation reads a source attribute, so
    /// an application must read the source first.
    pub reads_source: bool,
    /// How many SetByCaller keys it reads ([`set_by_caller_keys`](Self::set_by_caller_keys)):
    /// a spec carrying no more values than that, and no tags, has each of
    /// its values checked by the evaluation that reads it.
    pub set_by_caller_reads: usize,
    /// Applies to (and ticks on) an owner the life rule calls dead.
    pub affects_dead: bool,
    /// The chance it applies at all (`None`: always).
    pub chance: Option<f64>,
    /// Effects applied with it when the target matches the query.
    pub conditional: SmallVec<[(EffectId, TagQuery); 1]>,
    /// Effects applied to the owner when it runs out.
    pub on_expiry: SmallVec<[EffectId; 1]>,
    /// Effects applied to the owner when it is removed early.
    pub on_removal: SmallVec<[EffectId; 1]>,
    /// Abilities the owner holds while it is active (and not inhibited).
    pub granted_abilities: SmallVec<[AbilityId; 1]>,
    /// What an application of it involves (see [`Shape`]); settled once
    /// the catalog knows which tags its rules react to.
    pub(crate) shape: Shape,
}

/// The answers an application asks of its definition before anything
/// else (does it end lazily, add plainly, refresh at its limit, touch
/// only attributes?), settled once with the catalog
/// ([`EffectDefs::settle_shapes`]) from the fields they follow from. Each
/// application reads them: one load of a few flags, not a walk over a
/// dozen fields of the definition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    lazy_end: bool,
    adds_plainly: bool,
    refreshes_at_limit: bool,
    touches_only_attributes: bool,
}

impl EffectDef {
    /// True when `tag`, or a tag below it, is one it grants or one of its
    /// asset tags: what a removal or a query by tag reads of an effect
    /// (Unreal's owning tags).
    pub(crate) fn carries(&self, tag: Tag) -> bool {
        self.granted_tags.has(tag) || self.asset_tags.has(tag)
    }

    /// Does an active instance listen to its host: take part in rules
    /// that look at the host's effects as a whole or follow its changes
    /// (immunity, ongoing requirements, live captures)? The host indexes
    /// these, so checks never scan the others. (Not to be confused with a
    /// *watched* host, which something outside observes.)
    pub(crate) fn listens(&self) -> bool {
        self.immunity.is_some() || !self.ongoing_requirements.is_empty() || self.has_live_capture
    }

    /// Do active instances hold their modifiers in the aggregator? A
    /// periodic effect holds none: its modifiers are executed into the
    /// base every period instead (GAS semantics), so its expiry changes
    /// no value; a tag-only effect (a cooldown) has none to hold.
    pub(crate) fn holds_modifiers(&self) -> bool {
        self.period.is_none() && !self.modifiers.is_empty()
    }

    /// Do its instances end *lazily*? Then an instance arms no expiry
    /// timer: it carries its end instant, and every read (owned tags, the
    /// effect list, time remaining, snapshots) treats it as gone from that
    /// instant on. Its slot and tags are given back the next time the
    /// context touches the owner, and its end is told (trace, observers,
    /// waits) at its own instant only when something watches the owner.
    ///
    /// True for a duration effect whose end nothing in its definition
    /// reacts to (no period, modifiers, executions, cues, follow-ons,
    /// granted abilities, listening query or stack-by-stack expiry) and whose
    /// granted tags no rule of the catalog reacts to (cancel-on-tags,
    /// ongoing requirements, the life rule): a cooldown, a combat mark.
    pub fn ends_lazily(&self) -> bool {
        self.shape.lazy_end
    }

    /// The definition's half of [`ends_lazily`](Self::ends_lazily): nothing
    /// in it reacts to an instance's end, which only releases its tags and
    /// frees its slot.
    fn end_is_inert(&self) -> bool {
        matches!(self.duration, DurationPolicy::Duration(_))
            && self.period.is_none()
            && self
                .stacking
                .is_none_or(|s| s.on_expiry == StackExpiry::ClearAll)
            && self.modifiers.is_empty()
            && self.executions.is_empty()
            && self.cues.is_empty()
            && self.on_expiry.is_empty()
            && self.on_removal.is_empty()
            && self.granted_abilities.is_empty()
            && !self.listens()
    }

    /// Does an application do nothing but add an instance of its window
    /// and tags? An effect that [ends lazily](Self::ends_lazily) with no
    /// stacking rule, chance, application requirements, conditional
    /// effects, removal by tag or source reads (a cooldown): on a host
    /// nothing watches, the context adds it by a short path, and renews in
    /// place an instance of it that has just ended.
    #[inline]
    pub(crate) fn adds_plainly(&self) -> bool {
        self.shape.adds_plainly
    }

    /// [`adds_plainly`](Self::adds_plainly) from the fields, given whether
    /// it ends lazily.
    fn adds_plainly_by_fields(&self, lazy_end: bool) -> bool {
        lazy_end
            && self.stacking.is_none()
            && self.chance.is_none()
            && self.application_requirements.is_empty()
            && self.conditional.is_empty()
            && self.remove_effects_with_tags.is_empty()
            && !self.reads_source
    }

    /// Does an application execute into attribute values and nothing more,
    /// so that it reads and changes nothing a lazy end not yet cleared
    /// would disturb (the owner's tags, its effects and their slots)? True
    /// for an instant effect with no application requirements, conditional
    /// effects or removal by tag (a hit's damage): the context then need
    /// not catch the owner up first.
    #[inline]
    pub(crate) fn touches_only_attributes(&self) -> bool {
        self.shape.touches_only_attributes
    }

    /// [`touches_only_attributes`](Self::touches_only_attributes) from the
    /// fields.
    fn touches_only_attributes_by_fields(&self) -> bool {
        self.is_instant()
            && self.application_requirements.is_empty()
            && self.conditional.is_empty()
            && self.remove_effects_with_tags.is_empty()
    }

    /// Is a re-application onto a full stack nothing but the new spec taken
    /// and its window restarted? A stacking effect whose duration refreshes
    /// on re-application, with no period (whose phase a re-application may
    /// reset), chance, conditional effects, removal by tag, executions or
    /// source reads: once its instance holds its limit of stacks, applying
    /// it again only checks the refusals, evaluates the spec (capturing
    /// what its custom magnitudes keep of the target), takes it and
    /// restarts the duration (a combat mark refreshed by every hit), and
    /// the context takes a short path that does just that.
    #[inline]
    pub(crate) fn refreshes_at_limit(&self) -> bool {
        self.shape.refreshes_at_limit
    }

    /// [`refreshes_at_limit`](Self::refreshes_at_limit) from the fields.
    fn refreshes_at_limit_by_fields(&self) -> bool {
        self.stacking
            .is_some_and(|s| s.duration == DurationOnReapply::Refresh)
            && self.period.is_none()
            && self.chance.is_none()
            && self.conditional.is_empty()
            && self.remove_effects_with_tags.is_empty()
            && self.executions.is_empty()
            && !self.reads_source
    }

    /// True for `Instant` effects.
    pub fn is_instant(&self) -> bool {
        matches!(self.duration, DurationPolicy::Instant)
    }

    /// What the calculations it runs again while active capture: its
    /// custom modifier magnitudes' (evaluated again at each periodic
    /// execution, or when a live capture moves), then its executions'.
    pub(crate) fn calculation_captures<'a>(
        &'a self,
        calculations: &'a Calculations,
    ) -> impl Iterator<Item = &'a CaptureDef> + 'a {
        let custom = self.modifiers.iter().flat_map(move |m| match m.magnitude {
            Magnitude::Custom(id) => calculations.magnitude_def(id).captures.as_slice(),
            _ => &[],
        });
        let executed = self
            .executions
            .iter()
            .flat_map(move |&id| calculations.execution_def(id).captures.iter());
        custom.chain(executed)
    }

    /// The source attributes an application captures, in the order it
    /// reads them: those its modifiers and duration capture themselves,
    /// then those their calculations capture, then its executions'. One
    /// attribute may come more than once; none at all when the effect does
    /// not [read its source](Self::reads_source).
    pub(crate) fn source_attributes<'a>(
        &'a self,
        calculations: &'a Calculations,
    ) -> impl Iterator<Item = AttributeId> + 'a {
        let source = |capture: &CaptureDef| {
            (capture.from == CaptureFrom::Source).then_some(capture.attribute)
        };
        let magnitudes = || {
            self.modifiers
                .iter()
                .map(|m| &m.magnitude)
                .chain(self.duration.magnitude())
        };
        let direct = magnitudes().filter_map(|m| match m {
            Magnitude::Attribute(c) if c.from == CaptureFrom::Source => Some(c.attribute),
            _ => None,
        });
        let calculated = magnitudes()
            .flat_map(move |m| match m {
                Magnitude::Custom(id) => calculations.magnitude_def(*id).captures.as_slice(),
                _ => &[],
            })
            .filter_map(source);
        let executed = self
            .executions
            .iter()
            .flat_map(move |&id| calculations.execution_def(id).captures.iter())
            .filter_map(source);
        direct.chain(calculated).chain(executed)
    }

    /// Every SetByCaller key the effect reads (modifiers and duration): a
    /// spec must carry a value under each (or under one descendant of it).
    pub fn set_by_caller_keys(&self) -> impl Iterator<Item = Tag> + '_ {
        let duration = match &self.duration {
            DurationPolicy::Duration(Magnitude::SetByCaller(key)) => Some(*key),
            _ => None,
        };
        self.modifiers
            .iter()
            .filter_map(|m| match m.magnitude {
                Magnitude::SetByCaller(key) => Some(key),
                _ => None,
            })
            .chain(duration)
    }

    /// Cues fired at `event`.
    pub(crate) fn cues_on(&self, event: CueEvent) -> impl Iterator<Item = Tag> + '_ {
        self.cues
            .iter()
            .filter(move |c| c.on == event)
            .map(|c| c.tag)
    }
}

/// The game's rule for dead owners, compiled from the `life` section.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Life {
    /// An owner matching this is dead (the empty query: nobody ever is).
    pub dead: TagQuery,
    /// What an active periodic effect does while its owner is dead.
    pub periodic: PeriodicWhileDead,
}

impl Life {
    /// True when an owner holding `tags` is dead.
    #[inline]
    pub fn is_dead(&self, tags: &TagSet) -> bool {
        !self.dead.is_empty() && self.dead.matches(tags)
    }
}

/// Every effect definition, by id and by name, with the rules that belong
/// to effects as a whole: the life rule and the effects attributes apply at
/// zero.
#[derive(Clone, Debug, Default)]
pub struct EffectDefs {
    pub(super) defs: Vec<EffectDef>,
    pub(super) names: NameTable,
    pub(super) life: Life,
    /// Per attribute: the effect applied when an execution brings it to zero.
    pub(super) zero_effects: Vec<Option<EffectId>>,
    /// Some effect's calculations read a source attribute live, so effect
    /// timers must look the source up.
    pub(super) live_source_calculations: bool,
    /// Every tag some rule reacts to, with its subtree (see
    /// [`settle_shapes`](Self::settle_shapes)).
    pub(super) reactive_tags: TagSet,
}

impl EffectDefs {
    /// Settles each definition's [`Shape`]: which effects [end
    /// lazily](EffectDef::ends_lazily), given `reactive` (every tag some
    /// rule reacts to the appearance or loss of: the abilities'
    /// cancel-on-tags, the effects' ongoing requirements, the life rule;
    /// each with its subtree, since rules match parent-aware), and what
    /// follows from that and the fields. Run once the abilities are
    /// compiled and every link between definitions is resolved: nothing
    /// changes a definition after.
    pub(crate) fn settle_shapes(&mut self, reactive: TagSet) {
        for def in &mut self.defs {
            let lazy_end = def.end_is_inert() && !reactive.has_any_exact(&def.granted_tags);
            def.shape = Shape {
                lazy_end,
                adds_plainly: def.adds_plainly_by_fields(lazy_end),
                refreshes_at_limit: def.refreshes_at_limit_by_fields(),
                touches_only_attributes: def.touches_only_attributes_by_fields(),
            };
        }
        self.reactive_tags = reactive;
    }

    /// Every tag some rule reacts to, and every tag below one: a change to
    /// any other tag needs no reconcile, and an effect granting only such
    /// others may end lazily.
    pub(crate) fn reactive_tags(&self) -> &TagSet {
        &self.reactive_tags
    }

    /// True when some effect's calculations read a source attribute live.
    #[inline]
    pub fn has_live_source_calculations(&self) -> bool {
        self.live_source_calculations
    }

    /// The game's rule for dead owners.
    pub fn life(&self) -> &Life {
        &self.life
    }

    /// The effect applied when an execution brings `attribute` to zero.
    #[inline]
    pub fn zero_effect(&self, attribute: AttributeId) -> Option<EffectId> {
        self.zero_effects.get(attribute.index()).copied().flatten()
    }

    /// Number of effects.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// The definition of `id`.
    #[inline]
    pub fn def(&self, id: EffectId) -> &EffectDef {
        &self.defs[id.index()]
    }

    /// Every SetByCaller key `id` reads, and those the effects it causes
    /// read (its conditional, expiry and removal effects, and theirs), each
    /// with the effect that reads it, `id`'s own first. A caused effect is
    /// given its cause's values, so the spec that starts the chain must
    /// carry them all.
    pub fn chain_set_by_caller_keys(&self, id: EffectId) -> Vec<(EffectId, Tag)> {
        chain_set_by_caller_keys(&self.defs, id)
    }

    /// Every definition, in id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &EffectDef> {
        self.defs.iter()
    }

    /// The definition of `id`, if it exists in this catalog.
    pub fn try_def(&self, id: EffectId) -> Option<&EffectDef> {
        self.defs.get(id.index())
    }

    /// The effect called `name` (load time only).
    pub fn get(&self, name: &str) -> Option<EffectId> {
        self.names.get(name).map(EffectId::new)
    }

    /// Like [`get`](Self::get), with a located error and suggestion.
    pub fn resolve_in(&self, name: &str, file: &SourceFile) -> Result<EffectId, Diagnostic> {
        self.names
            .resolve_in(name, &file.name, &file.text)
            .map(EffectId::new)
    }
}

/// [`EffectDefs::chain_set_by_caller_keys`] over definitions still being
/// compiled.
pub(crate) fn chain_set_by_caller_keys(defs: &[EffectDef], id: EffectId) -> Vec<(EffectId, Tag)> {
    let mut seen = vec![id];
    let mut keys = Vec::new();
    let mut at = 0;
    while let Some(&effect) = seen.get(at) {
        at += 1;
        let def = &defs[effect.index()];
        keys.extend(def.set_by_caller_keys().map(|key| (effect, key)));
        let caused = (def.conditional.iter().map(|&(e, _)| e))
            .chain(def.on_expiry.iter().copied())
            .chain(def.on_removal.iter().copied());
        for next in caused {
            if !seen.contains(&next) {
                seen.push(next);
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use crate::catalog::CatalogBuilder;

    /// Every answer of a definition's settled [`Shape`](super::Shape)
    /// follows from its fields and the catalog's rules, including the
    /// links resolved after each definition is compiled (conditional
    /// effects) and the tags a rule reacts to: a watering can's lockout,
    /// a damp mark a watering refreshes, a soak that may set a bloom, a
    /// pour into the water level, one gated on the soil, and a shade that
    /// a bloom's ongoing requirement reacts to.
    #[test]
    fn shapes_are_settled_from_the_whole_catalog() {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source(
            "garden.tags",
            "Cooldown.Watering\nStatus.Damp\nStatus.Wet\nStatus.Blooming\nStatus.Shaded\nSoil.Dry\n",
        );
        builder.add_source(
            "garden.ron",
            r#"(attributes: [(name: "Water", base: 50, min: 0, max: 100)],
               effects: [
                (name: "GE_Lockout", duration: Duration(Constant(2)), granted_tags: ["Cooldown.Watering"]),
                (name: "GE_Damp", duration: Duration(Constant(3)), granted_tags: ["Status.Damp"],
                 stacking: (by: Target, limit: 1)),
                (name: "GE_Soak", duration: Duration(Constant(2)), granted_tags: ["Status.Wet"],
                 conditional: [(effect: "GE_Bloom", when: (all: ["Status.Wet"]))]),
                (name: "GE_Bloom", duration: Duration(Constant(3)), granted_tags: ["Status.Blooming"],
                 ongoing_requirements: (none: ["Status.Shaded"])),
                (name: "GE_Shade", duration: Duration(Constant(1)), granted_tags: ["Status.Shaded"]),
                (name: "GE_Pour", modifiers: [(attribute: "Water", op: Flat, magnitude: Constant(40))]),
                (name: "GE_Pour_Dry", application_requirements: (all: ["Soil.Dry"]),
                 modifiers: [(attribute: "Water", op: Flat, magnitude: Constant(40))]),
               ])"#,
        );
        let catalog = builder.build().unwrap();
        let defs = catalog.effects();
        let shape = |name: &str| {
            let def = defs.def(defs.get(name).unwrap());
            (
                def.ends_lazily(),
                def.adds_plainly(),
                def.refreshes_at_limit(),
                def.touches_only_attributes(),
            )
        };
        // (ends lazily, adds plainly, refreshes at its limit, touches only attributes)
        assert_eq!(shape("GE_Lockout"), (true, true, false, false));
        assert_eq!(shape("GE_Damp"), (true, false, true, false));
        assert_eq!(shape("GE_Soak"), (true, false, false, false));
        assert_eq!(shape("GE_Bloom"), (false, false, false, false));
        assert_eq!(shape("GE_Shade"), (false, false, false, false));
        assert_eq!(shape("GE_Pour"), (false, false, false, true));
        assert_eq!(shape("GE_Pour_Dry"), (false, false, false, false));
    }
}
