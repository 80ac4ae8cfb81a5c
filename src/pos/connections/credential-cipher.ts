import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { PosCredentials } from '../vendors/adapter.js'

/**
 * POS credentials at rest: AES-256-GCM under the service's secret key, with the connection id as
 * associated data so a ciphertext copied onto another connection does not decrypt. Stored as
 * `v1.<iv>.<tag>.<ciphertext>` in base64url.
 */
const VERSION = 'v1'
const IV_BYTES = 12

export function encryptCredentials(key: Buffer, connectionId: string, credentials: PosCredentials): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(connectionId))
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()])
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.')
}

/** Throws when the key is wrong or the stored value was tampered with. */
export function decryptCredentials(key: Buffer, connectionId: string, stored: string): PosCredentials {
  const [version, iv, tag, ciphertext] = stored.split('.')
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('stored credentials have an unknown format')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAAD(Buffer.from(connectionId))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()])
  return JSON.parse(plain.toString('utf8')) as PosCredentials
}
