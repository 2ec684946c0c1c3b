"""The two kinds of model the API is made of: request bodies and answers.

A request body takes exactly the arguments it names, with their JSON types (no coercion), in
snake_case as the routes document them. An answer is dumped with camelCase keys; a client
parses it strictly, so a server that answers another shape is a clear error naming the field.
"""

from __future__ import annotations

from typing import Any, Self, TypeVar

from pydantic import MISSING, BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

SCHEMA_REFS = "#/components/schemas/{model}"
"""Where the OpenAPI document keeps the models' schemas."""


class StrictBody(BaseModel):
    """A request body: no argument it does not name, no type coerced ("5" is not 5)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class Answer(BaseModel):
    """An answer of the server: camelCase on the wire, frozen, every field typed.

    Fields are named in snake_case in Python; ``dump`` writes them under their camelCase
    aliases. Unknown fields are ignored when parsing, so a newer server can add one. A field
    that only some answers carry is left out of the others, never sent as null: either
    ``omitted_when_none()`` (None means "not carried") or ``X | MISSING = MISSING`` where
    null is a value of its own (a review's ``comments``). Either way its schema does not list
    it as required; every other field is required, defaults included.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        frozen=True,
        extra="ignore",
        serialize_by_alias=True,
        validate_by_name=True,
        validate_by_alias=True,
        # A field with a default is still always sent, so its schema says it is there.
        json_schema_serialization_defaults_required=True,
        # Validators are built when a model is first used: a command needs a few of the
        # contract's hundreds of models, and building them all would slow every start.
        defer_build=True,
    )

    def dump(self) -> dict[str, Any]:
        """The JSON-ready value sent on the wire (camelCase keys)."""
        return self.model_dump(mode="json", by_alias=True)

    def dump_json(self) -> bytes:
        """The JSON text sent on the wire, encoded by pydantic-core (fast on large texts)."""
        return self.__pydantic_serializer__.to_json(self, by_alias=True)

    @classmethod
    def schema_of(cls, ref_template: str = SCHEMA_REFS) -> dict[str, Any]:
        """The JSON Schema of the answer as sent (camelCase, optional fields not required)."""
        return cls.model_json_schema(
            by_alias=True,
            mode="serialization",
            ref_template=ref_template,
            schema_generator=AnswerSchema,
        )

    @classmethod
    def parse(cls, data: object) -> Self:
        """The answer ``data`` (decoded JSON) holds; AnswerMismatch names the first field that
        does not fit. Values are converted where JSON allows more than one spelling."""
        try:
            return cls.model_validate(data)
        except ValidationError as err:
            raise AnswerMismatch(cls, err) from None

    @classmethod
    def parse_json(cls, payload: bytes) -> Self:
        """The answer in the JSON text ``payload``, read strictly: ``"5"`` is not 5, ``"true"``
        is not true; AnswerMismatch names the first field that does not fit."""
        try:
            return cls.model_validate_json(payload, strict=True)
        except ValidationError as err:
            raise AnswerMismatch(cls, err) from None


class AnswerMismatch(ValueError):
    """An answer that does not have the shape its model says: the field and what was wrong."""

    def __init__(self, model: type[BaseModel], error: ValidationError) -> None:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(the whole answer)"
        self.model = model.__name__
        self.field = where
        self.is_json = first["type"] != "json_invalid"
        """False when the answer was not JSON at all."""
        super().__init__(f"field `{where}` of {model.__name__}: {first['msg']}")


AnswerT = TypeVar("AnswerT", bound=Answer)


class Ok(Answer):
    """The answer of an operation that has nothing to say but that it was done."""

    ok: bool = True


class AnswerSchema(GenerateJsonSchema):
    """Answer schemas: a field left out of some answers is not required (see ``Answer``)."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        if field.get("serialization_exclude_if") is not None or _defaults_to_missing(field):
            return False
        return super().field_is_required(field, total)

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        if schema.get("default") is MISSING:
            return self.generate_inner(schema["schema"])
        return super().default_schema(schema)


def _defaults_to_missing(field: CoreSchema | Any) -> bool:
    inner = field.get("schema", {})
    return bool(inner.get("type") == "default" and inner.get("default") is MISSING)


def omitted_when_none() -> Any:
    """A field's default for an optional answer field that is left out of the JSON when None
    (rather than sent as null), as answers that only sometimes carry it do."""
    return Field(default=None, exclude_if=_is_none)


def _is_none(value: object) -> bool:
    return value is None
