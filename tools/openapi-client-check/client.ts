// Issue 24.5: what a client generated from the served schema does with an error. Every
// error the schema documents is a problem object, so `error` is a union of problem
// types and `error.type` type-checks under --strict; an error body documented as
// text/html (gunicorn's old 414) would add `string` to the union and fail here.
import createClient from "openapi-fetch";
import type { components, paths } from "../../var/openapi.d.ts";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });

export async function search(q: string): Promise<string> {
  const { data, error } = await client.GET("/v1/foods", {
    params: { query: { q } },
    headers: { "X-API-Key": "svc_sk_live_example" },
  });
  if (error !== undefined) {
    const kind: string = error.type;
    const status: number = error.status;
    return `${status} ${kind}: ${error.detail} (${error.doc_url})`;
  }
  return data.data.map((food) => food.name).join(", ");
}

export async function market(): Promise<string> {
  const { data, error } = await client.PUT("/v1/market", {
    body: { market: "US" },
    headers: { "X-API-Key": "svc_sk_live_example" },
  });
  if (error !== undefined) {
    return error.type;
  }
  return data.data.market ?? "";
}

// Issue 42.5: the reference lists, paged by following links.next (a path with its cursor).
export async function nutrientNames(): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const { data, error } = await client.GET("/v1/nutrients", {
      params: { query: { page_size: 100, cursor } },
      headers: { "X-API-Key": "svc_sk_live_example" },
    });
    if (error !== undefined) {
      throw new Error(`${error.status} ${error.type}`);
    }
    names.push(...data.data.map((nutrient) => `${nutrient.id} ${nutrient.name} (${nutrient.unit})`));
    if (data.links.next === null) {
      return names;
    }
    cursor = new URL(data.links.next, "http://x").searchParams.get("cursor") ?? undefined;
  }
}

export async function categoryIds(market: string): Promise<string[]> {
  const { data, error } = await client.GET("/v1/categories", {
    params: { query: { market, page_size: 100 } },
    headers: { "X-API-Key": "svc_sk_live_example" },
  });
  if (error !== undefined) {
    return [error.type];
  }
  const total: number = data.meta.total;
  return data.data.map((category) => `${category.id} (${total})`);
}

// A record is the whole FoodDetail unless `fields=` asked for less (a PartialFood):
// the schema says both, so a client narrows before reading a field it did not ask for.
type FoodDetail = components["schemas"]["FoodDetail"];
function isWhole(food: FoodDetail | components["schemas"]["PartialFood"]): food is FoodDetail {
  return "nutrients_per_100g" in food && "name" in food;
}

export async function netCarbs(id: string): Promise<number | null> {
  const { data, error } = await client.GET("/v1/foods/{public_id}", {
    params: { path: { public_id: id } },
    headers: { "X-API-Key": "svc_sk_live_example" },
  });
  if (error !== undefined || !isWhole(data.data)) {
    return null;
  }
  return data.data.nutrients_per_100g.net_carbs_g ?? null;
}

// Issue 42.2: a food by its barcode; a branded food of the FDC release carries its
// label facts, every other food `branded: null`.
export async function barcode(code: string): Promise<string> {
  const { data, error } = await client.GET("/v1/barcodes/{code}", {
    params: { path: { code } },
    headers: { "X-API-Key": "svc_sk_live_example" },
  });
  if (error !== undefined) {
    return `${error.status} ${error.type}: ${error.detail}`;
  }
  const branded = data.data.branded;
  return branded === null ? data.data.name : `${data.data.name} (${branded.gtin ?? "no GTIN"})`;
}

// Issue 42.3 and 42.4: a batch by id with only the fields asked for. `ids`, `fields`
// and `nutrients` are arrays serialised as comma lists; the body is a FoodBatch (or a
// page), whose records may hold only what was asked (`id` always).
export async function batch(ids: string[]): Promise<string> {
  const { data, error } = await client.GET("/v1/foods", {
    params: { query: { ids, fields: ["name", "nutrients_per_100g.protein_g"], nutrients: ["203"] } },
    headers: { "X-API-Key": "svc_sk_live_example" },
  });
  if (error !== undefined) {
    return `${error.status} ${error.type}: ${error.detail}`;
  }
  const found: string[] = data.data.map((food) => food.id);
  const missing: string[] = "missing" in data.meta ? data.meta.missing : [];
  return `${found.join(",")} missing ${missing.join(",")}`;
}

export async function record(id: string): Promise<string> {
  const { data, error } = await client.GET("/v1/foods/{public_id}", {
    params: { path: { public_id: id }, query: { fields: ["name"] } },
    headers: { "X-API-Key": "svc_sk_live_example" },
  });
  if (error !== undefined) {
    return error.type;
  }
  return data.data.id;
}
