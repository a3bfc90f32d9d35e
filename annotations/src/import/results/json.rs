//! The JSON of results files read as far as results need it: a document's top-level object as
//! its entries in order, each value a scalar, a list of scalars or an object's `instance_id` and
//! `resolved`, with strings borrowed from the file's text where they have no escapes, so no
//! tree of every value is built.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A JSON value as far as results need it: no tree of every value, strings borrowed from the
/// file's text where they have no escapes.
#[derive(Debug)]
pub(super) enum Json<'a> {
    /// A value that is no list or object.
    Scalar(Scalar<'a>),
    /// A list of values; lists and objects inside it are [`Scalar::Other`].
    List(Vec<Scalar<'a>>),
    /// An object, with the two fields a results format reads in one.
    Object {
        /// Its `instance_id` (a row of JSON lines).
        instance_id: Option<Scalar<'a>>,
        /// Its `resolved` (a row of JSON lines, or a task's report).
        resolved: Option<Scalar<'a>>,
    },
}

/// A JSON value that is no list or object, or [`Scalar::Other`] for one that is.
#[derive(Debug)]
pub(super) enum Scalar<'a> {
    Bool(bool),
    /// A whole number, 0 or more.
    Count(u64),
    Str(Cow<'a, str>),
    /// null, another number, a list or an object.
    Other,
}

/// Reads a [`Scalar`], skipping what a list or an object holds.
struct ScalarVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ScalarVisitor<'a> {
    type Value = Scalar<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::Count(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(u64::try_from(v).map_or(Scalar::Other, Scalar::Count))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor(PhantomData))
    }
}

/// Reads a [`Json`].
struct JsonVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for JsonVisitor<'a> {
    type Value = Json<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        ScalarVisitor(PhantomData).visit_bool(v).map(Json::Scalar)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        ScalarVisitor(PhantomData).visit_u64(v).map(Json::Scalar)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        ScalarVisitor(PhantomData).visit_i64(v).map(Json::Scalar)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        ScalarVisitor(PhantomData).visit_f64(v).map(Json::Scalar)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        ScalarVisitor(PhantomData)
            .visit_borrowed_str(v)
            .map(Json::Scalar)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        ScalarVisitor(PhantomData).visit_str(v).map(Json::Scalar)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Json::Scalar(Scalar::Other))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element::<Scalar<'a>>()? {
            items.push(item);
        }
        Ok(Json::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut instance_id, mut resolved) = (None, None);
        while let Some(key) = map.next_key::<Key<'a>>()? {
            match &*key.0 {
                "instance_id" => instance_id = Some(map.next_value::<Scalar<'a>>()?),
                "resolved" => resolved = Some(map.next_value::<Scalar<'a>>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Json::Object {
            instance_id,
            resolved,
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor(PhantomData))
    }
}

/// An object's key, borrowed where it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_str(ScalarVisitor(PhantomData))? {
            Scalar::Str(key) => Ok(Key(key)),
            _ => Err(de::Error::custom("an object's key must be a string")),
        }
    }
}

/// An object's entries in order.
pub(super) type Entries<'a> = Vec<(Cow<'a, str>, Json<'a>)>;

/// Reads an object into its entries in order.
struct OrderedObject<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for OrderedObject<'a> {
    type Value = Entries<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((Key(key), value)) = map.next_entry::<Key<'a>, Json<'a>>()? {
            entries.push((key, value));
        }
        Ok(entries)
    }
}

/// `text` as one JSON object and nothing after it.
pub(super) fn parse_object(text: &str) -> serde_json::Result<Entries<'_>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let entries = (&mut de).deserialize_map(OrderedObject(PhantomData))?;
    de.end()?;
    Ok(entries)
}
