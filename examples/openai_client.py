"""The official openai client against `toollearn serve` (start it first: toollearn serve)."""

import json

from openai import OpenAI

client = OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="none")
tools = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]  # fmt: skip
messages = [{"role": "user", "content": "What is the weather in Oslo?"}]

first = client.chat.completions.create(model="smollm2-135m", messages=messages, tools=tools)
call = first.choices[0].message.tool_calls[0]
print("tool call:", call.function.name, call.function.arguments)

messages += [first.choices[0].message.model_dump(exclude_none=True),
             {"role": "tool", "tool_call_id": call.id,
              "content": json.dumps({"temperature_c": 4, "sky": "snow"})}]  # fmt: skip
second = client.chat.completions.create(model="smollm2-135m", messages=messages, tools=tools)
print("after the result:", second.choices[0].finish_reason, second.choices[0].message.content)

stream = client.chat.completions.create(
    model="smollm2-135m", stream=True, max_tokens=30,
    messages=[{"role": "user", "content": "Name three colours."}])  # fmt: skip
print("streamed:", "|".join(p.choices[0].delta.content or "" for p in stream if p.choices))
