/**
 * Who made a change: a person signed in to the console, an API key, or the operator (the command
 * line, the service on its own). Decisions, notes and audit lines carry it, name included, so a
 * removed person or a revoked key still reads as who they were.
 */
export interface Actor {
  type: 'user' | 'api_key' | 'operator';
  id: string;
  name: string;
}

export const OPERATOR: Actor = { type: 'operator', id: 'operator', name: 'the operator' };

/** An API key's name as people read it: its own, or "API key" for the account's key. */
export const keyActor = (key: { id: string; name: string | null }): Actor => ({ type: 'api_key', id: key.id, name: key.name ?? 'API key' });
