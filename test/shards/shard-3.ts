import { runShard } from '../helpers/shard.js'

await runShard(3, 4)
