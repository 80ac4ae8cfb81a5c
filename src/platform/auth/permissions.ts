export const PERMISSIONS = ['inventory:read', 'inventory:write', 'pos:read', 'pos:write', 'ordering:read', 'ordering:write', 'analytics:read', 'webhooks:manage'] as const

export type Permission = (typeof PERMISSIONS)[number]

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value)
}

/** Parses a comma-separated permission list, or `*` for all eight. Throws on an unknown name. */
export function parsePermissionList(text: string): Permission[] {
  if (text.trim() === '*') return [...PERMISSIONS]
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
  if (names.length === 0) throw new Error('the permission list is empty')
  for (const name of names) {
    if (!isPermission(name)) throw new Error(`unknown permission "${name}"; known: ${PERMISSIONS.join(', ')} or *`)
  }
  return [...new Set(names)] as Permission[]
}
