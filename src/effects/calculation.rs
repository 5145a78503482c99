//! Calculations in code, named from data: *executions* (Unreal's execution
//! calculations: read captured attributes, the spec and the RNG, write
//! several attributes) and *custom magnitudes* (one number from captured
//! attributes and the spec).
//!
//! A calculation is registered on the [`CatalogBuilder`](crate::CatalogBuilder)
//! under the name data uses (`executions: ["SpellDamage"]`,
//! `magnitude: Custom("Falloff")`). When the catalog is built it declares,
//! once, the attributes it captures and writes and the tags it reads, by
//! name: an unknown name is a load error naming the calculation, and an
//! unknown calculation name in data is a load error with a suggestion. At
//! run time it sees only ids.
//!
//! ```
//! use gaskit::prelude::*;
//! use gaskit::{Capture, CaptureFrom, CalculationSetup, ExecutionCalculation, ExecutionCx};
//!
//! /// 20 + 1.5 × the caster's SpellPower − the target's Armor, at least 0;
//! /// a quarter of the casts crit for double.
//! #[derive(Default)]
//! struct SpellDamage {
//!     power: Capture,
//!     armor: Capture,
//!     damage: Option<AttributeId>,
//! }
//!
//! impl ExecutionCalculation for SpellDamage {
//!     fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
//!         self.power = setup.capture("SpellPower", CaptureFrom::Source, false);
//!         self.armor = setup.capture("Armor", CaptureFrom::Target, true);
//!         self.damage = setup.attribute("Damage");
//!     }
//!
//!     fn execute(&self, cx: &mut ExecutionCx<'_>) {
//!         let mut damage = (20.0 + 1.5 * cx.captured(self.power) - cx.captured(self.armor)).max(0.0);
//!         if cx.chance(0.25) {
//!             damage *= 2.0;
//!         }
//!         if let Some(attribute) = self.damage {
//!             cx.output(attribute, ModOp::Flat, damage);
//!         }
//!     }
//! }
//!
//! let mut builder = CatalogBuilder::new();
//! builder.add_execution("SpellDamage", SpellDamage::default());
//! builder.add_source("game.ron", r#"(
//!     attributes: [(name: "SpellPower", base: 10), (name: "Armor", base: 5), (name: "Health", base: 100)],
//!     effects: [(name: "GE_Bolt", executions: ["SpellDamage"])],
//! )"#);
//! # let mut builder = builder;
//! # builder.add_source("extra.ron", r#"(attributes: [(name: "Damage", meta: true, drains: "Health")])"#);
//! let mut gas = Gas::new(builder.build().unwrap());
//! let mut world = hecs::World::new();
//! let (mage, wolf) = (world.spawn((gas.new_ability_system(),)), world.spawn((gas.new_ability_system(),)));
//! let bolt = gas.catalog().effects().get("GE_Bolt").unwrap();
//! gas.apply_effect(&mut world, wolf, EffectSpec::new(bolt).with_source(mage)).unwrap();
//! let health = gas.catalog().attributes().get("Health").unwrap();
//! let left = world.get::<&AbilitySystem>(wolf).unwrap().current(health);
//! assert!(left == 70.0 || left == 40.0, "30 damage, or 60 on a crit: {left}");
//! ```

use std::fmt;
use std::sync::Arc;

use hecs::Entity;
use rand_chacha::rand_core::Rng;
use rand_chacha::ChaCha8Rng;
use smallvec::SmallVec;

use super::active::EffectKey;
use super::data::CaptureFrom;
use super::def::EffectDef;
use super::spec::EffectSpec;
use crate::attributes::{AttributeId, AttributeSchema, Attributes, ModOp, SourceId};
use crate::diagnostics::{nearest, Diagnostic, LoadErrors};
use crate::names::NameTable;
use crate::tags::{Tag, TagRegistry};

/// A captured attribute, as a calculation declared it (an index into its
/// capture list). The default handle reads the first capture.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Capture(u8);

/// One attribute a calculation reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CaptureDef {
    /// Which attribute.
    pub attribute: AttributeId,
    /// Whose.
    pub from: CaptureFrom,
    /// Read at each execution (a periodic effect's every tick), and for a
    /// held modifier's custom magnitude whenever it changes, instead of
    /// once, when the effect was applied.
    pub live: bool,
}

/// What a calculation declares when the catalog is built: names resolved
/// to ids, unknown names recorded as load errors naming the calculation.
pub struct CalculationSetup<'a> {
    name: &'a str,
    tags: &'a TagRegistry,
    attributes: &'a AttributeSchema,
    captures: Vec<CaptureDef>,
    errors: &'a mut LoadErrors,
}

impl CalculationSetup<'_> {
    /// Declares a captured attribute: the source's or the target's, read
    /// once at application (`live: false`) or at every execution.
    pub fn capture(&mut self, attribute: &str, from: CaptureFrom, live: bool) -> Capture {
        let index = self.captures.len().min(u8::MAX as usize) as u8;
        if self.captures.len() >= u8::MAX as usize {
            self.error(format!("captures more than {} attributes", u8::MAX));
        }
        let attribute = self.attribute(attribute).unwrap_or(AttributeId::new(0));
        self.captures.push(CaptureDef {
            attribute,
            from,
            live,
        });
        Capture(index)
    }

    /// An attribute the calculation writes or reads by id.
    pub fn attribute(&mut self, name: &str) -> Option<AttributeId> {
        let found = self.attributes.get(name);
        if found.is_none() {
            let suggestion = nearest(
                name,
                self.attributes.ids().map(|id| self.attributes.name(id)),
            );
            let message = format!("unknown attribute `{name}`");
            self.error_with(message, suggestion);
        }
        found
    }

    /// A tag the calculation reads (a SetByCaller key, a spec tag).
    pub fn tag(&mut self, name: &str) -> Option<Tag> {
        match self.tags.resolve(name) {
            Ok(tag) => Some(tag),
            Err(unknown) => {
                self.error_with(format!("unknown tag `{name}`"), unknown.suggestion);
                None
            }
        }
    }

    /// Records a problem of the calculation's own, failing the build.
    pub fn error(&mut self, message: impl fmt::Display) {
        self.error_with(message.to_string(), None);
    }

    fn error_with(&mut self, message: String, suggestion: Option<String>) {
        self.errors.push(
            Diagnostic::error(
                format!("calculation `{}`", self.name),
                format!("calculation `{}`: {message}", self.name),
            )
            .suggest(suggestion),
        );
    }
}

/// An execution calculation: runs on every instant or periodic execution of
/// an effect that names it, reading captured attributes, the spec and the
/// context's RNG, and writing to attributes of the target (meta attributes
/// included, which drain as usual).
pub trait ExecutionCalculation: Send + Sync + 'static {
    /// Declares what it captures and writes, once, at catalog build.
    fn setup(&mut self, setup: &mut CalculationSetup<'_>);

    /// Computes the outputs of one execution with [`ExecutionCx::output`].
    /// A non-finite output fails the execution, changing nothing.
    fn execute(&self, cx: &mut ExecutionCx<'_>);
}

/// A custom magnitude calculation: one number for a modifier or a duration,
/// from captured attributes and the spec, evaluated when the magnitude is:
/// at application; for a modifier, again at each periodic execution, and
/// on a held modifier whenever a live capture changes (a held modifier
/// may not read live the attribute it moves: a load error). Pure: it may
/// not roll, so a dry run (validation before commit) can evaluate it.
///
/// ```
/// use gaskit::prelude::*;
///
/// /// A shout's strength falls off with distance: 40 / (1 + distance).
/// #[derive(Default)]
/// struct Falloff { distance: Option<Tag> }
///
/// impl MagnitudeCalculation for Falloff {
///     fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
///         self.distance = setup.tag("SetByCaller.Distance");
///     }
///     fn magnitude(&self, cx: &MagnitudeCx<'_>) -> f64 {
///         let distance = self.distance.and_then(|k| cx.set_by_caller(k)).unwrap_or(0.0);
///         40.0 / (1.0 + distance)
///     }
/// }
///
/// let mut builder = CatalogBuilder::new();
/// builder.add_magnitude("Falloff", Falloff::default());
/// builder.tags().add_source("game.tags", "SetByCaller.Distance\n");
/// builder.add_source("game.ron", r#"(
///     attributes: [(name: "Fear")],
///     effects: [(name: "GE_Shout", duration: Duration(Constant(2)),
///                modifiers: [(attribute: "Fear", op: Flat, magnitude: Custom("Falloff"))])],
/// )"#);
/// let mut gas = Gas::new(builder.build().unwrap());
/// let mut world = hecs::World::new();
/// let goblin = world.spawn((gas.new_ability_system(),));
/// let distance = gas.catalog().tags().get("SetByCaller.Distance").unwrap();
/// let shout = gas.catalog().effects().get("GE_Shout").unwrap();
/// gas.apply_effect(&mut world, goblin, EffectSpec::new(shout).with_set_by_caller(distance, 3.0)).unwrap();
/// let fear = gas.catalog().attributes().get("Fear").unwrap();
/// assert_eq!(world.get::<&AbilitySystem>(goblin).unwrap().current(fear), 10.0);
/// ```
pub trait MagnitudeCalculation: Send + Sync + 'static {
    /// Declares what it captures, once, at catalog build.
    fn setup(&mut self, setup: &mut CalculationSetup<'_>);

    /// The magnitude.
    fn magnitude(&self, cx: &MagnitudeCx<'_>) -> f64;
}

/// What every calculation reads: captured attributes and the spec. A
/// magnitude calculation's whole context; an execution's
/// [`ExecutionCx`] reads through it too (it dereferences to one).
pub struct MagnitudeCx<'a> {
    pub(crate) spec: &'a EffectSpec,
    pub(crate) values: CaptureValues<'a>,
}

/// How an evaluation reads its target's attributes: as they stand, or,
/// for a stack being applied again, with that stack's own modifiers left
/// out (what it captures of an attribute it moves itself would otherwise
/// feed on its own bonus, compounding with every refresh). A plain read
/// only tests for none left out, so it costs an application nothing.
#[derive(Copy, Clone, Default)]
pub(crate) struct TargetRead<'a> {
    leaving_out: Option<(&'a AttributeSchema, SourceId)>,
}

impl<'a> TargetRead<'a> {
    /// The attributes as they stand.
    pub(crate) const PLAIN: TargetRead<'static> = TargetRead { leaving_out: None };

    /// How `def` reads its target when applied onto `stack`: without that
    /// stack's own modifiers, when there is one and the effect reads its
    /// target at all; as the attributes stand otherwise.
    pub(crate) fn onto(
        schema: &'a AttributeSchema,
        def: &EffectDef,
        stack: Option<EffectKey>,
    ) -> Self {
        Self {
            leaving_out: stack
                .filter(|_| def.reads_target)
                .map(|key| (schema, key.source_id())),
        }
    }

    /// `id`'s current value in `attributes`, as this read sees it.
    pub(crate) fn current(self, attributes: &Attributes, id: AttributeId) -> f64 {
        match self.leaving_out {
            None => attributes.current(id),
            Some((schema, source)) => attributes.current_without(schema, id, source),
        }
    }
}

impl<'a> MagnitudeCx<'a> {
    /// What a calculation capturing `defs` reads of `spec`: the values
    /// `stored` at application, and `target`'s own for live target
    /// captures (or every target capture, `target_now`).
    pub(crate) fn new(
        spec: &'a EffectSpec,
        defs: &'a [CaptureDef],
        stored: &'a [(CaptureFrom, AttributeId, f64)],
        (target, read): (&'a Attributes, TargetRead<'a>),
        target_now: bool,
    ) -> Self {
        MagnitudeCx {
            spec,
            values: CaptureValues {
                defs,
                stored,
                target,
                read,
                target_now,
            },
        }
    }
}

impl MagnitudeCx<'_> {
    /// A captured attribute's value.
    pub fn captured(&self, capture: Capture) -> f64 {
        self.values.get(capture)
    }

    /// The spec (level, SetByCaller values, spec tags, source).
    pub fn spec(&self) -> &EffectSpec {
        self.spec
    }

    /// The spec's level (at least 1).
    pub fn level(&self) -> u32 {
        self.spec.level.max(1)
    }

    /// The spec's SetByCaller value under `key`, if it has exactly one.
    pub fn set_by_caller(&self, key: Tag) -> Option<f64> {
        self.spec.set_by_caller(key).ok()
    }
}

/// What an execution calculation reads and writes. Everything a
/// [`MagnitudeCx`] reads (captures, spec, level, SetByCaller values) is
/// read the same way here.
pub struct ExecutionCx<'a> {
    pub(crate) reads: MagnitudeCx<'a>,
    pub(crate) target: Entity,
    pub(crate) stacks: u32,
    pub(crate) rng: &'a mut ChaCha8Rng,
    pub(crate) outputs: &'a mut Outputs,
    pub(crate) marks: &'a mut SmallVec<[Tag; 2]>,
}

impl<'a> std::ops::Deref for ExecutionCx<'a> {
    type Target = MagnitudeCx<'a>;

    fn deref(&self) -> &MagnitudeCx<'a> {
        &self.reads
    }
}

impl ExecutionCx<'_> {
    /// Who applied the effect.
    pub fn source(&self) -> Option<Entity> {
        self.reads.spec.source
    }

    /// Who receives it.
    pub fn target(&self) -> Entity {
        self.target
    }

    /// The effect's stack count (1 for an instant effect). Outputs are not
    /// scaled by it: a calculation decides what stacks mean.
    pub fn stacks(&self) -> u32 {
        self.stacks
    }

    /// The context's RNG: the one deterministic stream.
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        self.rng
    }

    /// True with probability `p` (clamped to `[0, 1]`), drawn from the RNG.
    pub fn chance(&mut self, p: f64) -> bool {
        roll(self.rng, p)
    }

    /// A number in `[0, 1)`, uniform, drawn from the RNG (a quality roll,
    /// a spread): the draw [`chance`](Self::chance) compares with `p`.
    /// For integers, [`rng`](Self::rng) is the stream itself (its methods
    /// come with `use gaskit::rand_chacha::rand_core::Rng`).
    pub fn uniform(&mut self) -> f64 {
        uniform(self.rng)
    }

    /// Writes `value` into the target's `attribute` base with `op`, by the
    /// rule a modifier of that op follows (`Flat` adds, `Override`
    /// replaces; `Mult` multiplies, and divides an Interval attribute's
    /// span; `Points` scale by their clamped sum): a meta attribute drains
    /// into its target as usual. The application fails,
    /// having written nothing, when a value is not finite
    /// ([`EffectError::CalculationFailed`](super::EffectError::CalculationFailed))
    /// or names an attribute the target does not hold
    /// ([`EffectError::CalculationOutputUnknown`](super::EffectError::CalculationOutputUnknown)).
    pub fn output(&mut self, attribute: AttributeId, op: ModOp, value: f64) {
        self.outputs.push((attribute, op, value));
    }

    /// Adds a tag to this execution's spec tags, for the post-execute
    /// observers to read (`Damage.Critical`).
    pub fn mark(&mut self, tag: Tag) {
        if !self.marks.contains(&tag) {
            self.marks.push(tag);
        }
    }
}

/// The attribute writes of one execution.
pub(crate) type Outputs = SmallVec<[(AttributeId, ModOp, f64); 4]>;

/// Where captured values come from during one evaluation.
#[derive(Copy, Clone)]
pub(crate) struct CaptureValues<'a> {
    pub defs: &'a [CaptureDef],
    /// Values read at application (and live source values refreshed).
    pub stored: &'a [(CaptureFrom, AttributeId, f64)],
    /// The target's attributes, for live target captures.
    pub target: &'a Attributes,
    /// How they are read.
    pub read: TargetRead<'a>,
    /// Read every target capture from the target now (an evaluation at
    /// application, where snapshot and live agree).
    pub target_now: bool,
}

impl CaptureValues<'_> {
    fn get(&self, capture: Capture) -> f64 {
        let Some(def) = self.defs.get(capture.0 as usize) else {
            return f64::NAN;
        };
        if def.from == CaptureFrom::Target && (def.live || self.target_now) {
            return self.read.current(self.target, def.attribute);
        }
        self.stored
            .iter()
            .find(|(from, attribute, _)| *from == def.from && *attribute == def.attribute)
            .map_or(f64::NAN, |&(_, _, value)| value)
    }
}

/// Index of a registered calculation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CalculationId(u16);

impl CalculationId {
    /// The dense index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A registered calculation and what it declared.
pub(crate) struct Registered<T: ?Sized> {
    pub calculation: Arc<T>,
    pub captures: Vec<CaptureDef>,
}

impl<T: ?Sized> Clone for Registered<T> {
    fn clone(&self) -> Self {
        Self {
            calculation: self.calculation.clone(),
            captures: self.captures.clone(),
        }
    }
}

/// The calculations registered on a catalog, by name.
#[derive(Clone, Default)]
pub struct Calculations {
    executions: Vec<Registered<dyn ExecutionCalculation>>,
    execution_names: NameTable,
    magnitudes: Vec<Registered<dyn MagnitudeCalculation>>,
    magnitude_names: NameTable,
}

impl fmt::Debug for Calculations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Calculations")
            .field("executions", &self.execution_names)
            .field("magnitudes", &self.magnitude_names)
            .finish()
    }
}

/// Calculations waiting for the build (setup needs the schema and tags).
#[derive(Default)]
pub(crate) struct PendingCalculations {
    pub executions: Vec<(String, Box<dyn ExecutionCalculation>)>,
    pub magnitudes: Vec<(String, Box<dyn MagnitudeCalculation>)>,
}

impl fmt::Debug for PendingCalculations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |list: &[(String, _)]| list.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        f.debug_struct("PendingCalculations")
            .field("executions", &names(&self.executions))
            .finish_non_exhaustive()
    }
}

impl Calculations {
    /// Runs every calculation's setup and numbers them. Duplicate names are
    /// errors.
    pub(crate) fn build(
        pending: PendingCalculations,
        tags: &TagRegistry,
        attributes: &AttributeSchema,
        errors: &mut LoadErrors,
    ) -> Calculations {
        let mut out = Calculations {
            execution_names: NameTable::new("execution calculation"),
            magnitude_names: NameTable::new("magnitude calculation"),
            ..Calculations::default()
        };
        let setup =
            |name: &str, errors: &mut LoadErrors, f: &mut dyn FnMut(&mut CalculationSetup<'_>)| {
                let mut setup = CalculationSetup {
                    name,
                    tags,
                    attributes,
                    captures: Vec::new(),
                    errors,
                };
                f(&mut setup);
                setup.captures
            };
        for (name, mut calculation) in pending.executions {
            if out.execution_names.insert(&name).is_err() {
                errors.push(Diagnostic::error(
                    "catalog builder",
                    format!("execution calculation `{name}` is registered twice"),
                ));
                continue;
            }
            let captures = setup(&name, errors, &mut |s| calculation.setup(s));
            out.executions.push(Registered {
                calculation: Arc::from(calculation),
                captures,
            });
        }
        for (name, mut calculation) in pending.magnitudes {
            if out.magnitude_names.insert(&name).is_err() {
                errors.push(Diagnostic::error(
                    "catalog builder",
                    format!("magnitude calculation `{name}` is registered twice"),
                ));
                continue;
            }
            let captures = setup(&name, errors, &mut |s| calculation.setup(s));
            out.magnitudes.push(Registered {
                calculation: Arc::from(calculation),
                captures,
            });
        }
        out
    }

    /// The execution calculation called `name` (load time).
    pub fn execution(&self, name: &str) -> Option<CalculationId> {
        self.execution_names
            .get(name)
            .map(|i| CalculationId(i as u16))
    }

    /// The magnitude calculation called `name` (load time).
    pub fn magnitude(&self, name: &str) -> Option<CalculationId> {
        self.magnitude_names
            .get(name)
            .map(|i| CalculationId(i as u16))
    }

    /// The name of an execution calculation.
    pub fn execution_name(&self, id: CalculationId) -> &str {
        self.execution_names.iter().nth(id.index()).unwrap_or("?")
    }

    /// The name of a magnitude calculation.
    pub fn magnitude_name(&self, id: CalculationId) -> &str {
        self.magnitude_names.iter().nth(id.index()).unwrap_or("?")
    }

    pub(crate) fn execution_names(&self) -> &NameTable {
        &self.execution_names
    }

    pub(crate) fn magnitude_names(&self) -> &NameTable {
        &self.magnitude_names
    }

    pub(crate) fn execution_def(&self, id: CalculationId) -> &Registered<dyn ExecutionCalculation> {
        &self.executions[id.index()]
    }

    pub(crate) fn magnitude_def(&self, id: CalculationId) -> &Registered<dyn MagnitudeCalculation> {
        &self.magnitudes[id.index()]
    }
}

impl CalculationId {
    pub(crate) const fn new(index: usize) -> Self {
        Self(index as u16)
    }
}

/// True with probability `p` (clamped to `[0, 1]`): one draw from `rng`,
/// its top 53 bits as a uniform number in `[0, 1)`.
pub(crate) fn roll(rng: &mut ChaCha8Rng, p: f64) -> bool {
    uniform(rng) < p.clamp(0.0, 1.0)
}

/// 53 random bits as a number in `[0, 1)`.
fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}
