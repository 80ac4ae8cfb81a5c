/**
 * POS's front door: what other rooms may use of pos's sub-folders (auto-map/, vendors/, simulation/),
 * which are its inside. Analytics' "similar unmapped sales" uses the auto-mapper's name matching.
 */
export { type Match, NameMatcher } from './auto-map/name-matcher.js'
export { defaultConversionFor } from './auto-map/default-conversion.js'
