import type { CompiledQuery, Compilable } from 'kysely'
import type { Executor } from './database.js'

/** Stands for the n-th bound value while a precompiled query is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

interface Compiled<Row> {
  query: CompiledQuery<Row>
  /** Each parameter of the query: the index of the call's bound value it stands for, or the constant it is. */
  binders: ({ slot: number } | { constant: unknown })[]
}

function compile<Row>(query: Compilable<Row>): Compiled<Row> {
  const compiled = query.compile()
  const binders = compiled.parameters.map((parameter) => (parameter instanceof Slot ? { slot: parameter.index } : { constant: parameter }))
  return { query: compiled, binders }
}

async function run<Row>(db: Executor, { query, binders }: Compiled<Row>, values: readonly unknown[]): Promise<Row[]> {
  const parameters = binders.map((binder) => ('slot' in binder ? values[binder.slot] : binder.constant))
  const result = await db.executeQuery<Row>({ ...query, parameters })
  return result.rows
}

/**
 * A query built and compiled once, then run with each call's arguments bound in their places: for the
 * hottest reads, where building and compiling the Kysely query on every call cost about a tenth of the
 * request's CPU. `build` receives stand-ins for its arguments and must use each only as a bound value
 * (`where('id', '=', id)`), never in JavaScript logic, because it runs once.
 */
export function precompiled<Row, Args extends unknown[]>(build: (db: Executor, ...args: Args) => Compilable<Row>) {
  let compiled: Compiled<Row> | undefined
  return (db: Executor, ...args: Args): Promise<Row[]> => {
    compiled ??= compile(build(db, ...(args.map((_, index) => new Slot(index)) as Args)))
    return run(db, compiled, args)
  }
}

/** Answers a stand-in for `value` (which the query binds) and notes the value for the call. */
export type Bind = <T>(value: T) => T

/** What a call of a shaped query is: its shape's key and the arguments `build` is given, bound values replaced by stand-ins. */
export interface Shaped<Args> {
  key: string
  args: Args
}

/**
 * A query whose shape (which filters, which order) follows some of its inputs, compiled once per shape:
 * `shape` answers the call's key (every input the shape depends on, and nothing else) and the arguments
 * for `build`, each bound value passed through `bind`, or undefined for a call not worth keeping (its
 * query is built and compiled as usual). `build` must use bound values only as bound values: it runs once
 * per key. Keys are kept for the life of the process, so a key must come from a small set.
 */
export function precompiledShapes<Row, Args extends unknown[]>(
  shape: (bind: Bind, ...args: Args) => Shaped<Args> | undefined,
  build: (db: Executor, ...args: Args) => Compilable<Row>,
) {
  const shapes = new Map<string, Compiled<Row>>()
  return async (db: Executor, ...args: Args): Promise<Row[]> => {
    const values: unknown[] = []
    const bind = <T>(value: T): T => new Slot(values.push(value) - 1) as T
    const call = shape(bind, ...args)
    if (!call) return (await db.executeQuery(build(db, ...args).compile())).rows
    let compiled = shapes.get(call.key)
    if (!compiled) {
      compiled = compile(build(db, ...call.args))
      shapes.set(call.key, compiled)
    }
    return run(db, compiled, values)
  }
}
