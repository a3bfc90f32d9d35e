"""Checks the tests' Chat Completions server with OpenAI's own Python package, so that the server
the Rust tests rate against cannot drift from the real format: the SDK validates each response
into its pydantic types, raises its typed errors for OpenAI's error bodies, honours Retry-After,
and refuses a reply cut off for length when parsing structured output.

Usage: python3 bench/chat_check.py ENDPOINT PARTIAL_ENDPOINT KEY
  ENDPOINT          a server that requires KEY (examples/chat_serve.rs DIR --key KEY)
  PARTIAL_ENDPOINT  a server in llama.cpp's partial dialect (chat_serve DIR --partial)
Prints one line per check and exits 1 on the first that fails.
"""

import json
import sys

import openai
import pydantic

SCHEMA = {
    "type": "object",
    "properties": {
        "underspecified": {"type": "integer", "enum": [0, 1, 2, 3]},
        "underspecified_notes": {"type": "string"},
    },
    "required": ["underspecified", "underspecified_notes"],
    "additionalProperties": False,
}
STRICT = {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": SCHEMA}}
MESSAGES = [
    {"role": "system", "content": "Rate the task."},
    {"role": "user", "content": "The issue, the patches and the tests."},
]


class Answer(pydantic.BaseModel):
    underspecified: int
    underspecified_notes: str


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
    if not ok:
        sys.exit(1)


def fault(name):
    return {"extra_headers": {"x-test-fault": name}}


def main():
    endpoint, partial_endpoint, key = sys.argv[1:4]
    client = openai.OpenAI(base_url=endpoint, api_key=key, max_retries=0)

    reply = client.chat.completions.create(model="m", messages=MESSAGES, response_format=STRICT, seed=1)
    check("a completion validates as the SDK's ChatCompletion", isinstance(reply, openai.types.chat.ChatCompletion))
    content = json.loads(reply.choices[0].message.content)
    check("its content is the schema's object", set(content) == set(SCHEMA["properties"]), str(content))
    check("finish_reason stop", reply.choices[0].finish_reason == "stop")
    usage = reply.usage
    check("usage adds up", usage.total_tokens == usage.prompt_tokens + usage.completion_tokens, str(usage))

    parsed = client.chat.completions.parse(model="m", messages=MESSAGES, response_format=Answer)
    check("structured output parses into a pydantic model", isinstance(parsed.choices[0].message.parsed, Answer))

    try:
        client.chat.completions.parse(model="m", messages=MESSAGES, response_format=Answer, **fault("cut-off"))
        check("a cut-off reply is refused by the SDK", False)
    except openai.LengthFinishReasonError:
        check("a cut-off reply is refused by the SDK (LengthFinishReasonError)", True)

    wrong = openai.OpenAI(base_url=endpoint, api_key="sk-wrong", max_retries=0)
    try:
        wrong.chat.completions.create(model="m", messages=MESSAGES)
        check("a wrong key is refused", False)
    except openai.AuthenticationError as e:
        check("a wrong key is an AuthenticationError", e.status_code == 401 and e.code == "invalid_api_key", str(e))

    try:
        client.chat.completions.create(model="m", messages=MESSAGES, **fault("429:0"))
        check("a rate limit is refused", False)
    except openai.RateLimitError as e:
        check("429 is a RateLimitError with Retry-After", e.response.headers.get("retry-after") == "0", str(e))

    retrying = openai.OpenAI(base_url=endpoint, api_key=key, max_retries=2)
    try:
        retrying.chat.completions.create(model="m", messages=MESSAGES, **fault("503"))
        check("503 fails after the SDK's retries", False)
    except openai.InternalServerError as e:
        check("503 is an InternalServerError after the SDK's own retries", e.status_code == 503, str(e))

    try:
        client.chat.completions.create(model="m", messages=MESSAGES, **fault("500"))
        check("500 is refused", False)
    except openai.InternalServerError as e:
        check("500 is an InternalServerError with OpenAI's error body", e.type == "server_error", str(e))

    malformed = client.chat.completions.create(model="m", messages=MESSAGES, response_format=STRICT, **fault("malformed"))
    try:
        json.loads(malformed.choices[0].message.content)
        check("malformed content is not JSON", False)
    except json.JSONDecodeError:
        check("malformed content arrives as text that is not JSON", True)

    local = openai.OpenAI(base_url=partial_endpoint, api_key="none", max_retries=0)
    try:
        local.chat.completions.create(model="m", messages=MESSAGES, response_format=STRICT)
        check("the partial dialect refuses json_schema", False)
    except openai.InternalServerError as e:
        check("the partial dialect refuses json_schema with a 500 naming json_object", "json_object" in str(e), str(e))
    loose = local.chat.completions.create(
        model="m", messages=MESSAGES, response_format={"type": "json_object"}, extra_body={"response_format": {"type": "json_object", "schema": SCHEMA}}
    )
    check("and takes json_object with the schema", set(json.loads(loose.choices[0].message.content)) == set(SCHEMA["properties"]))


if __name__ == "__main__":
    main()
