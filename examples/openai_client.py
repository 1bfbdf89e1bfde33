"""The official openai client against `toollearn serve` (start it first: toollearn serve)."""

import json

from openai import OpenAI

client = OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="none")
model = client.models.list().data[0].id  # the id the server serves
tools = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]  # fmt: skip
messages = [{"role": "user", "content": "What is the weather in Oslo?"}]

first = client.chat.completions.create(model=model, messages=messages, tools=tools)
call = first.choices[0].message.tool_calls[0]
print("tool call:", call.function.name, call.function.arguments)

messages += [first.choices[0].message.model_dump(exclude_none=True),
             {"role": "tool", "tool_call_id": call.id,
              "content": json.dumps({"temperature_c": 4, "sky": "snow"})}]  # fmt: skip
second = client.chat.completions.create(model=model, messages=messages, tools=tools)
print("after the result:", second.choices[0].finish_reason, second.choices[0].message.content)

stream = client.chat.completions.create(model=model, messages=messages[:1], tools=tools,
                                        stream=True)  # fmt: skip
for part in stream:  # a call streams as tool_calls deltas: id and name, then the arguments
    if part.choices and part.choices[0].delta.tool_calls:
        print("delta:", part.choices[0].delta.tool_calls[0].model_dump(exclude_none=True))
    elif part.choices and part.choices[0].finish_reason:
        print("finish:", part.choices[0].finish_reason)

stream = client.chat.completions.create(
    model=model, stream=True, max_tokens=30,
    messages=[{"role": "user", "content": "Name three colours."}])  # fmt: skip
print("streamed:", "|".join(p.choices[0].delta.content or "" for p in stream if p.choices))
